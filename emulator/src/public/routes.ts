/**
 * The public API (seed 4.2) under `/callosum/v1/tspublic/v1/…` and `/tspublic/v1/…`.
 */
import type { FastifyInstance } from 'fastify';
import type { Sessions } from '../auth';
import type { Catalog } from '../catalog';
import type { EmulatorUser } from '../context';
import type { Engine } from '../engine';
import type { SearchService } from '../searchdata/run';

/** What the public API needs from the core. */
export interface PublicApiDeps {
  catalog: Catalog;
  engine: Engine;
  search: SearchService;
  sessions: Sessions;
  verifyPassword(username: string, password: string): Promise<EmulatorUser | undefined>;
  now(): Date;
  loopback: boolean;
}

/** Registers the public API under both prefixes. */
export async function registerPublicApi(_app: FastifyInstance, _deps: PublicApiDeps): Promise<void> {}
