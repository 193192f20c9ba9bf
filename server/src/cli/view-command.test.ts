import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cspHash, viewPage } from './view-command';

const between = (page: string, open: string, close: string): string => {
  const at = page.indexOf(open);
  assert.ok(at >= 0, `the page has ${open}`);
  return page.slice(at + open.length, page.indexOf(close, at + open.length));
};

test('the standalone page allows its own style and script by hash, and nothing inline besides', () => {
  const bundle = 'console.log("</script><b>")';
  const page = viewPage(['run.json'], ['{"x":"</script><script>alert(1)</script>"}'], bundle);
  const csp = between(page, '<meta http-equiv="Content-Security-Policy" content="', '"');
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  const style = between(page, '<style>', '</style>');
  const script = between(page, '<script type="module">', '</script>');
  assert.match(csp, new RegExp(`style-src ${cspHash(style).replace(/[+/]/g, '\\$&')};`));
  assert.match(csp, new RegExp(`script-src ${cspHash(script).replace(/[+/]/g, '\\$&')}$`));
  // The hash is of what the page holds: the bundle's "</script" is escaped, and so hashed escaped.
  assert.notEqual(cspHash(script), cspHash(bundle));
  // One executable script: the data's "</script>" did not open a second one.
  assert.equal(page.match(/<script/g)?.length, 2);
});
