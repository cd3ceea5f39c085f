//! A free TCP port on the loopback interface, as the OS picks one.
import net from 'node:net';

/** A port free on 127.0.0.1 right now (the Temporal runtime's metrics exporter, a test stack's parts). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
