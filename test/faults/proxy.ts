// A small TCP proxy in front of the emulator for fault injection: it relays every connection to the
// emulator's current port (which changes when the emulator is started again) and can cut the traffic at a
// chosen byte offset. Not a test file itself.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback TCP proxy to `target()`'s port. */
export class FaultProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  /** Bytes left (both directions together) before the armed cut; undefined when no cut is armed. */
  private budget: number | undefined;
  /** Cuts made so far. */
  cuts = 0;
  port = 0;

  constructor(private readonly target: () => number | undefined) {
    this.server = createServer((client) => this.relay(client));
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }

  /** Arms a cut: the connection that carries the byte at `offset` (counted from now, both directions) is cut there. */
  armCut(offset: number): void {
    this.budget = Math.max(0, Math.floor(offset));
  }

  /** True while an armed cut has not happened yet. */
  get armed(): boolean {
    return this.budget !== undefined;
  }

  disarm(): void {
    this.budget = undefined;
  }

  private relay(client: Socket): void {
    const port = this.target();
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    if (port === undefined) {
      client.destroy();
      return;
    }
    const upstream = connect(port, '127.0.0.1');
    this.sockets.add(upstream);
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    const pass = (from: Socket, to: Socket) => {
      from.on('data', (d: Buffer) => {
        if (this.budget !== undefined) {
          if (d.length > this.budget) {
            // the cut: the bytes before the offset go through, then both sides are reset
            const head = d.subarray(0, this.budget);
            this.budget = undefined;
            this.cuts++;
            if (head.length) to.write(head);
            setImmediate(() => {
              client.resetAndDestroy();
              upstream.resetAndDestroy();
            });
            return;
          }
          this.budget -= d.length;
        }
        if (!to.write(d)) {
          from.pause();
          to.once('drain', () => from.resume());
        }
      });
    };
    pass(client, upstream);
    pass(upstream, client);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
