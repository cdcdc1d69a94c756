/**
 * Checking and decoding UTF-8 in pieces with the offsets of the bytes that are not UTF-8, for the
 * client's pipeline (which reports them before the commit) and the emulator's splitter (which makes
 * their records bad records). Valid input takes the fast path (`isUtf8`, then `Buffer.toString`).
 * Rules: the Unicode standard's well-formed UTF-8 (Table 3-7: no overlong forms, no surrogates,
 * nothing above U+10FFFF; https://www.unicode.org/versions/latest/ch03.pdf).
 */
import { isUtf8 } from 'node:buffer';

/** A byte that is not part of a valid UTF-8 sequence. */
export interface InvalidUtf8 {
  /** Index of its U+FFFD in the decoded text of this piece (`decode` only; -1 from `check`). */
  index: number;
  /** Offset of the byte in the whole input. */
  byteOffset: number;
  byte: number;
}

/**
 * Decodes (or only checks) UTF-8 in pieces, replacing every byte that is not part of a valid sequence
 * with U+FFFD and reporting where (index in the returned text, offset in the whole input, the byte).
 */
export class Utf8Decoder {
  private carry: Buffer = Buffer.alloc(0);
  /** Offset in the whole input of `carry[0]`. */
  private offset = 0;

  /**
   * The complete sequences of the carried bytes and `bytes` (`body`, starting at input offset `base`); an
   * incomplete sequence at the end is carried to the next call unless `final`.
   */
  private take(bytes: Uint8Array, final: boolean): { body: Buffer; base: number } {
    const all = this.carry.length ? Buffer.concat([this.carry, bytes]) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const keep = final ? 0 : incompleteTail(all);
    const body = all.subarray(0, all.length - keep);
    const base = this.offset;
    this.carry = keep ? Buffer.from(all.subarray(all.length - keep)) : Buffer.alloc(0);
    this.offset += body.length;
    return { body, base };
  }

  /** Only the bytes that are not UTF-8 in `bytes` (no text is built); `final` as for `decode`. */
  check(bytes: Uint8Array, final: boolean): InvalidUtf8[] {
    const { body, base } = this.take(bytes, final);
    if (isUtf8(body)) return [];
    const invalid: InvalidUtf8[] = [];
    for (let i = 0; i < body.length; ) {
      const n = sequenceLength(body, i);
      if (n > 0) i += n;
      else invalid.push({ index: -1, byteOffset: base + i, byte: body[i++]! });
    }
    return invalid;
  }

  /** Decodes `bytes` (with `final`, the end of the input: an incomplete sequence is invalid). */
  decode(bytes: Uint8Array, final: boolean): { text: string; invalid: InvalidUtf8[] } {
    const { body, base } = this.take(bytes, final);
    if (isUtf8(body)) return { text: body.toString('utf8'), invalid: [] };
    const invalid: InvalidUtf8[] = [];
    let text = '';
    let run = 0;
    for (let i = 0; i < body.length; ) {
      const n = sequenceLength(body, i);
      if (n > 0) {
        i += n;
        continue;
      }
      text += body.toString('utf8', run, i);
      invalid.push({ index: text.length, byteOffset: base + i, byte: body[i]! });
      text += '\uFFFD';
      i++;
      run = i;
    }
    text += body.toString('utf8', run);
    return { text, invalid };
  }
}

/** Length of the valid UTF-8 sequence at `b[i]`, or 0 when it is not valid (or cut off by the end of `b`). */
export function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** Bytes at the end of `b` that start a multi-byte sequence not yet complete (0–3): they wait for the next piece. */
function incompleteTail(b: Uint8Array): number {
  for (let k = 1; k <= 3 && k <= b.length; k++) {
    const c = b[b.length - k]!;
    if (c < 0x80) return 0;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > k ? k : 0;
    }
  }
  return 0;
}

