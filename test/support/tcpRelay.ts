/**
 * A TCP relay to a server on a loopback port of its own, which can refuse connections and drop the
 * open ones (`cut`: a laptop leaving the lab's network) and take them again (`restore`). Used by the
 * library-server tests and by the real VS Code check of a server out of reach.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpRelay {
  /** `target` with the relay's port. */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function tcpRelay(target: URL): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let open = true;
  const relay = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const u = new URL(target.toString());
  u.port = String((relay.address() as AddressInfo).port);
  return {
    url: u.toString(),
    cut() {
      open = false;
      for (const x of sockets) x.destroy();
    },
    restore() {
      open = true;
    },
    close: () => new Promise<void>((r) => relay.close(() => r())),
  };
}
