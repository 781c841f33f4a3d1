/**
 * A store where real ones are: across a network, {@link STORE_DISTANCE_MS} ms of round trip away. The
 * seek rows measure on loopback too, where the store, `serveMedia` (or the worker) and the player share
 * one machine and a second HTTP hop is most of a seek; at a distance a hop is the part of a seek it is
 * when a user waits for one.
 *
 * @module
 */
import { connect, createServer, type Socket } from 'node:net';

/** The round trip to the store in the "store 20 ms away" rows (a home connection to a nearby region). */
export const STORE_DISTANCE_MS = 20;

/** The loopback address the relay listens on (the store listens on 127.0.0.1). */
const RELAY_HOST = '127.0.0.2';

/**
 * A TCP relay to `target` that holds every piece `delayMs` before passing it on, in each direction: a
 * store that far away (order kept: equal timeouts fire in the order they were set). It listens on
 * another loopback address with the store's own port, so the `Host` a client sends still names the store
 * (the media server answers only to its own host and port).
 */
export async function delayingRelay(
  target: URL,
  delayMs: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const pass = (from: Socket, to: Socket) => {
    from.on('data', (piece) => setTimeout(() => to.write(piece), delayMs));
    from.on('end', () => setTimeout(() => to.end(), delayMs));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      // Each piece goes on when its delay is over: with Nagle's algorithm a small last piece waited for the
      // peer's delayed ACK (40 ms here), on either side of a comparison, at random.
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    pass(client, upstream);
    pass(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(Number(target.port), RELAY_HOST, resolve));
  return {
    url: `http://${RELAY_HOST}:${target.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
