// The client's v2 operations behind the Objects view's Share… and Delete… against a real emulator on
// REST API v1 and on v2 (they go on v2 either way): an answer of the administrator's is unseen by the
// analyst until shared READ_ONLY, seen once shared, unseen again after NO_ACCESS; deleted, it is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANALYST, startLive, type Live } from './client-support';

for (const generation of ['v1', 'v2'] as const) {
  describe(`share and delete through the client (API ${generation})`, () => {
    let live: Live;
    before(async () => {
      live = await startLive();
    });
    after(async () => live?.stop());

    test('share READ_ONLY, then NO_ACCESS, then delete', async () => {
      const admin = live.client(undefined, { apiVersion: generation });
      const analyst = live.client(ANALYST, { apiVersion: generation });
      const [r] = await admin.importTml([`answer:\n  name: Shared ${generation}\n  tables:\n  - name: movies\n  search_query: "[Director] [US Gross]"\n`], 'PARTIAL');
      const id = r!.header!.id_guid!;
      const sees = async (): Promise<boolean> => (await analyst.listObjectHeaders({ type: 'QUESTION_ANSWER_BOOK' })).some((h) => h.id === id);
      assert.equal(await sees(), false, 'not shared yet');
      const analystUser = (await admin.listPrincipals()).find((p) => p.kind === 'USER' && p.name === 'analyst')!;
      await admin.shareMetadata([{ identifier: id, type: 'ANSWER' }], [{ identifier: analystUser.id!, type: 'USER' }], 'READ_ONLY');
      assert.equal(await sees(), true, 'shared READ_ONLY');
      await admin.shareMetadata([{ identifier: id, type: 'ANSWER' }], [{ identifier: 'analyst', type: 'USER' }], 'NO_ACCESS');
      assert.equal(await sees(), false, 'share taken back');
      await admin.deleteMetadata([{ identifier: id, type: 'ANSWER' }]);
      assert.equal((await admin.listObjectHeaders({ type: 'QUESTION_ANSWER_BOOK' })).some((h) => h.id === id), false);
    });
  });
}
