/**
 * Passwords and sessions of the public API (docs/service-notes.md §5.1). Passwords are stored only as scrypt
 * hashes (node:crypto, 16-byte salt, 64-byte key); a session is a random `JSESSIONID` naming a user id.
 */
import { randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';

function scryptAsync(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((res, rej) => scrypt(password, salt, 64, (err, key) => (err ? rej(err) : res(key))));
}

/** Hashes a password with a new random salt; returns both as hex. */
export async function hashPassword(password: string): Promise<{ salt: string; hash: string }> {
  const salt = randomBytes(16);
  return { salt: salt.toString('hex'), hash: (await scryptAsync(password, salt)).toString('hex') };
}

/** True when `password` hashes to `stored.hash` with `stored.salt` (constant-time comparison). */
export async function checkPassword(password: string, stored: { salt: string; hash: string }): Promise<boolean> {
  const key = await scryptAsync(password, Buffer.from(stored.salt, 'hex'));
  const want = Buffer.from(stored.hash, 'hex');
  return want.length === key.length && timingSafeEqual(key, want);
}

/** A session of the public API: the user it belongs to and when it began (epoch ms). */
export interface Session {
  id: string;
  clientId: string;
  userId: string;
  /** The Org the session runs in (0: Primary); v1 `session/orgs` PUT moves it to another. */
  orgId: number;
  created: number;
}

/** The public API's sessions, in memory (a restart logs everyone out, as a service restart does). */
export class Sessions {
  private readonly byId = new Map<string, Session>();
  private readonly userEnded: ((userId: string) => void)[] = [];

  /** Calls `listener` with the user id every time `closeUser` ends a user's sessions (the load API ends its own then). */
  onCloseUser(listener: (userId: string) => void): void {
    this.userEnded.push(listener);
  }

  /** Opens a session for a user in one Org (default Primary); returns the `JSESSIONID` and `clientId` cookie values. */
  open(userId: string, orgId = 0): Session {
    const s = { id: randomUUID(), clientId: randomUUID(), userId, orgId, created: Date.now() };
    this.byId.set(s.id, s);
    return s;
  }

  get(id: string | undefined): Session | undefined {
    return id ? this.byId.get(id) : undefined;
  }

  close(id: string): void {
    this.byId.delete(id);
  }

  /** Ends every session of a user (after a password change). */
  closeUser(userId: string, except?: string): void {
    for (const [k, s] of this.byId) if (s.userId === userId && k !== except) this.byId.delete(k);
    for (const l of this.userEnded) l(userId);
  }
}
