/**
 * Placeholder for the data-load API (seed 4.1, field notes 4), which its own module replaces: it
 * registers nothing yet. The core calls `registerLoadApi` on the main app and, with `--load-port`, on a
 * second Fastify instance; both already have @fastify/cookie and @fastify/formbody registered.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context';

/** Registers the data-load API routes on `app`. */
export async function registerLoadApi(_app: FastifyInstance, _ctx: EmulatorContext): Promise<void> {}
