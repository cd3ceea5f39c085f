//! One SMTP client conversation over a socket: write a command, read its (possibly multi-line)
//! reply. Written for servers that misbehave: every line is capped, every reply has a line limit,
//! and a caller's signal (the overall deadline) ends a read that a dripping server keeps open.
import type net from 'node:net';
import { ToolError } from '../../contracts/errors.js';
import { upstreamError } from '../../lib/upstream.js';
import { parseReplyLine, type SmtpReply } from './smtp-replies.js';

export interface SmtpLimits {
  /**
   * Bytes in one reply line, CRLF included. RFC 5321 allows 512; real servers stay far below.
   * @default 4096. A longer line ends the session as a protocol error.
   */
  maxLineBytes?: number;
  /** Lines in one reply (EHLO lists a few dozen at most). @default 100 */
  maxReplyLines?: number;
}

export interface SmtpConversation {
  /** Reads the next complete reply. */
  read(): Promise<SmtpReply>;
  /** Sends one command line (CRLF added) and reads its reply. */
  command(line: string): Promise<SmtpReply>;
  /**
   * Stops reading from the socket (before a TLS upgrade). Returns true when the server had sent
   * more than the replies read: such bytes came before the handshake and must not be trusted as
   * if they came over TLS (the STARTTLS command injection of CVE-2011-0411).
   */
  detach(): { unread: boolean };
}

export interface ConversationOptions extends SmtpLimits {
  /** Host and port as the user named them, for error messages. */
  host: string;
  port: number;
  /** Aborts a pending read; its reason is what the read rejects with. */
  signal: AbortSignal;
}

const protocolError = (host: string, port: number, why: string) =>
  new ToolError('upstream_error', `${host}:${port} does not speak SMTP as expected: ${why}`, { reason: 'protocol' });

export function createSmtpConversation(socket: net.Socket, options: ConversationOptions): SmtpConversation {
  const maxLineBytes = options.maxLineBytes ?? 4096;
  const maxReplyLines = options.maxReplyLines ?? 100;
  const { host, port, signal } = options;

  let buffer = Buffer.alloc(0);
  let pending: SmtpReply | undefined;
  const ready: SmtpReply[] = [];
  let failure: unknown;
  let waiter: { resolve: (r: SmtpReply) => void; reject: (e: unknown) => void } | undefined;

  function fail(err: unknown) {
    if (failure) return;
    failure = err;
    waiter?.reject(err);
    waiter = undefined;
  }

  function deliver() {
    if (!waiter) return;
    if (ready.length) {
      const w = waiter;
      waiter = undefined;
      w.resolve(ready.shift()!);
    } else if (failure) {
      fail(failure);
    }
  }

  /** Splits complete lines off the buffer into replies; throws on a limit or a malformed line. */
  function consume() {
    for (;;) {
      const end = buffer.indexOf(0x0a);
      if (end < 0) {
        if (buffer.length >= maxLineBytes) throw protocolError(host, port, `a reply line is longer than ${maxLineBytes} bytes`);
        return;
      }
      if (end + 1 > maxLineBytes) throw protocolError(host, port, `a reply line is longer than ${maxLineBytes} bytes`);
      const line = buffer.subarray(0, end).toString('utf8').replace(/\r$/, '');
      buffer = buffer.subarray(end + 1);
      const parsed = parseReplyLine(line);
      if (!parsed) throw protocolError(host, port, `unexpected line ${JSON.stringify(line.slice(0, 80))}`);
      if (pending && pending.code !== parsed.code) throw protocolError(host, port, 'a multi-line reply changed its code');
      pending ??= { code: parsed.code, lines: [] };
      pending.lines.push(parsed.text);
      if (pending.lines.length > maxReplyLines) throw protocolError(host, port, `a reply has more than ${maxReplyLines} lines`);
      if (parsed.last) {
        ready.push(pending);
        pending = undefined;
      }
    }
  }

  const onData = (chunk: Buffer) => {
    if (failure) return;
    buffer = Buffer.concat([buffer, chunk]);
    try {
      consume();
    } catch (err) {
      fail(err);
      socket.destroy();
    }
    deliver();
  };
  const onError = (err: Error) => fail(upstreamError(err, host, port));
  const onClose = () => fail(new ToolError('upstream_error', `${host}:${port} closed the connection`, { reason: 'connection_reset' }));
  const onAbort = () => {
    fail(signal.reason);
    socket.destroy();
  };

  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  function read(): Promise<SmtpReply> {
    if (ready.length) return Promise.resolve(ready.shift()!);
    if (failure) return Promise.reject(failure);
    if (waiter) return Promise.reject(new Error('one SMTP read at a time'));
    return new Promise((resolve, reject) => (waiter = { resolve, reject }));
  }

  return {
    read,
    async command(line) {
      if (failure) throw failure;
      socket.write(`${line}\r\n`);
      return read();
    },
    detach() {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      signal.removeEventListener('abort', onAbort);
      socket.pause();
      return { unread: buffer.length > 0 || ready.length > 0 || pending !== undefined };
    },
  };
}
