/**
 * UTF-8 bytes to a string, invalid sequences as U+FFFD (what TextDecoder does without `fatal`). Hand-written
 * because the engine's project, which compiles this folder, has neither Node's nor the DOM's types; it runs
 * once per module path a rank describes, not per record.
 */
export function utf8(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i] as number;
    const n =
      b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    let cp = n === 0 ? b : n === 1 ? b & 0x1f : n === 2 ? b & 0x0f : b & 0x07;
    let ok = n >= 0 && i + n < bytes.length;
    for (let k = 1; ok && k <= n; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid too.
    if (
      ok &&
      ((n === 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
        (n === 3 && (cp < 0x10000 || cp > 0x10ffff)))
    )
      ok = false;
    if (ok) {
      out += String.fromCodePoint(cp);
      i += n + 1;
    } else {
      out += '\ufffd';
      i += 1;
    }
  }
  return out;
}
