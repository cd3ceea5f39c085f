//! How the load balancer finds the API replicas on this machine, as a cluster's DNS tells it
//! elsewhere (Docker's names in compose, a headless Service in Kubernetes): one SRV name lists
//! each replica's address and port, answered over UDP on 127.0.0.1. HAProxy's `server-template`
//! asks again every second (deploy/haproxy/haproxy.cfg), so its configuration names no replica.
//! The replicas here share 127.0.0.1 and differ by port, which only SRV records can say.
import dgram from 'node:dgram';
import { once } from 'node:events';
import packet from 'dns-packet';

/** Where the replicas are: a name of its own (the SRV target), an address and a port. */
export interface Replica {
  name: string;
  host: string;
  port: number;
}

export interface DiscoveryDns {
  /** `127.0.0.1:<port>`: HAProxy's `nameserver`. */
  address: string;
  /** The SRV name the balancer asks for (`_api._tcp.<zone>`). */
  service: string;
}

const ZONE = 'cluster.internal';
/** Short: a replica that moves is found again within seconds. */
const TTL = 5;
const NXDOMAIN = 3;

/** The answer to one question: the replicas' SRV records with their addresses, or a replica's address. */
export function answerFor(question: packet.Question, replicas: readonly Replica[], service: string) {
  const name = question.name.toLowerCase();
  const target = (r: Replica) => `${r.name}.${ZONE}`;
  const address = (r: Replica): packet.Answer => ({ name: target(r), type: 'A', class: 'IN', ttl: TTL, data: r.host });
  if (name === service && question.type === 'SRV')
    return {
      answers: replicas.map(
        (r): packet.Answer => ({
          name: service,
          type: 'SRV',
          class: 'IN',
          ttl: TTL,
          data: { priority: 0, weight: 1, port: r.port, target: target(r) },
        }),
      ),
      additionals: replicas.map(address),
      rcode: 0,
    };
  const replica = replicas.find((r) => target(r) === name);
  if (replica) return { answers: question.type === 'A' ? [address(replica)] : [], additionals: [], rcode: 0 };
  // Known name, other type: no data. Anything else: no such name.
  return { answers: [], additionals: [], rcode: name === service ? 0 : NXDOMAIN };
}

export async function startDiscoveryDns(port: number, replicas: readonly Replica[]): Promise<DiscoveryDns & { close(): Promise<void> }> {
  const service = `_api._tcp.${ZONE}`;
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, from) => {
    let query: packet.DecodedPacket;
    try {
      query = packet.decode(message);
    } catch {
      return; // not DNS: nothing to answer
    }
    const question = query.questions?.[0];
    if (!question) return;
    const { answers, additionals, rcode } = answerFor(question, replicas, service);
    const reply = packet.encode({
      id: query.id,
      type: 'response',
      flags: packet.AUTHORITATIVE_ANSWER | rcode,
      questions: [question],
      answers,
      additionals,
    });
    socket.send(reply, from.port, from.address);
  });
  socket.bind(port, '127.0.0.1');
  await once(socket, 'listening');
  socket.unref(); // the stack's processes keep its process alive, not this
  return {
    address: `127.0.0.1:${port}`,
    service,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
