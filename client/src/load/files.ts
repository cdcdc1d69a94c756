// The files a Load CSV reads before it asks anything: the saved load definition beside the CSV file, and
// the sample of the file the sniffer reads.
import { open as openFile, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { LoadDefinition } from '../../../common/src/api';
import { fromSaved, parseSavedDefinition, savedDefinitionPath } from '../../../common/src/load/definition';

/** How much of a file the sniffer reads (bytes). */
const SAMPLE_BYTES = 1024 * 1024;

/** The saved definition next to `file`, or undefined when there is none. @throws Error when it exists but is malformed. */
export async function readSaved(file: string): Promise<{ definition: LoadDefinition; encoding: string } | undefined> {
  let text: string;
  try {
    text = await readFile(savedDefinitionPath(file), 'utf8');
  } catch {
    return undefined;
  }
  return fromSaved(parseSavedDefinition(text, basename(savedDefinitionPath(file))));
}

/** The first `SAMPLE_BYTES` of the file, and whether that is all of it. */
export async function readSample(file: string): Promise<{ sample: Buffer; complete: boolean }> {
  const fh = await openFile(file, 'r');
  try {
    const buf = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const size = (await fh.stat()).size;
    return { sample: buf.subarray(0, bytesRead), complete: bytesRead >= size };
  } finally {
    await fh.close();
  }
}
