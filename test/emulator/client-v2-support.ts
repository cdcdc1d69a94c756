// Support of client-v2.test.ts: a bare HttpSession on the client's own transport. Not a test file itself.
import { createDispatcher, HttpSession, type RequestLogInfo } from '../../common/src/api/session';

export { AuthenticationError, ServiceError, rateLimitHooks } from '../../common/src/api';
export type { RequestLogInfo } from '../../common/src/api';

/** An HttpSession that never logs in (calls pass `authenticated: false`), logging each exchange. */
export class HttpSessionForTests extends HttpSession {
  constructor(url: string, onRequest: (i: RequestLogInfo) => void) {
    super(url, createDispatcher({}), () => Promise.reject(new Error('no login in this test')), onRequest);
  }
}
