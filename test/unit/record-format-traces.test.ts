/**
 * Traces of the same two corpus programs written by the shim before record format 2 (main at 5471c25: every
 * COMPLETE two records, a blocking call's COMPLETE and EXIT apart, point-to-point ENTERs in two records) and by
 * the format-2 shim (packed ENTERs and COMPLETEs, COMPLETE_EXIT): `mpiscope report` of either gives the same
 * findings, the ones the programs' corpus headers expect. The traces were recorded with Open MPI 4.1
 * (`mpiscope run --trace`, test/fixtures/record-format/README.md).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMPLETE_PACKED, ENTER_PACKED, KIND, RECORD_SIZE } from '../../server/src/protocol/spec';
import { replayTrace } from '../../server/src/session/replay';
import { readTrace } from '../../server/src/session/trace-file';
import { repoRoot } from '../lib/mpiscope-cli';

const dir = join(repoRoot(), 'test', 'fixtures', 'record-format');

/** How many records of each form the trace's binary frames hold. */
function forms(path: string): { merged: number; packedEnter: number; packedComplete: number; wide: number } {
  const n = { merged: 0, packedEnter: 0, packedComplete: 0, wide: 0 };
  for (const f of readTrace(path)) {
    if (f.kind !== 'binary') continue;
    for (let at = 0; at < f.data.length; at += RECORD_SIZE) {
      const kind = f.data[at];
      const flags = f.data[at + 1] as number;
      if (kind === KIND.COMPLETE_EXIT) n.merged++;
      else if (kind === KIND.ENTER && (flags & ENTER_PACKED) !== 0) n.packedEnter++;
      else if (kind === KIND.COMPLETE && (flags & COMPLETE_PACKED) !== 0) n.packedComplete++;
      else if (kind === KIND.COMPLETE) n.wide++;
    }
  }
  return n;
}

async function findings(path: string): Promise<unknown[]> {
  const { result } = await replayTrace(path, 1);
  // Source lines need the program's binary, which is not here: kinds, messages and ranks are compared.
  return result.findings.map((f) => ({
    kind: f.kind,
    severity: f.severity,
    message: f.message,
    ranks: f.locations.map((l) => l.rank),
  }));
}

for (const [program, kinds] of [
  ['count-mismatch-truncation', ['count-mismatch']],
  ['deadlock-waitall-never-sent', ['deadlock']],
] as const) {
  test(`${program}: a format-1 trace reports what the format-2 trace of the same program does`, async () => {
    const v1 = join(dir, `${program}.format1.trace`);
    const v2 = join(dir, `${program}.format2.trace`);
    // The fixtures are what they claim to be: the old shim wrote no format-2 form, the new one the merged and
    // packed forms (and no two-record COMPLETE).
    const f1 = forms(v1);
    const f2 = forms(v2);
    assert.deepEqual([f1.merged, f1.packedEnter, f1.packedComplete], [0, 0, 0]);
    assert.ok(f1.wide > 0, 'the format-1 trace has COMPLETE records');
    assert.ok(f2.merged > 0 && f2.packedEnter > 0, JSON.stringify(f2));
    assert.equal(f2.wide, 0);
    const r1 = await findings(v1);
    const r2 = await findings(v2);
    assert.deepEqual(
      r1.map((f) => (f as { kind: string }).kind),
      kinds,
    );
    assert.deepEqual(r1, r2);
  });
}

test('the hellos of the fixtures say their format', () => {
  for (const [file, version] of [
    ['count-mismatch-truncation.format1.trace', 1],
    ['count-mismatch-truncation.format2.trace', 2],
  ] as const) {
    const hello = readTrace(join(dir, file)).find((f) => f.kind === 'text');
    assert.equal((JSON.parse(hello?.data.toString() ?? '{}') as { version?: number }).version, version);
  }
});
