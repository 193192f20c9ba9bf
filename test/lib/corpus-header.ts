/** The header of a corpus program (test/programs/README.md), parsed. */
export interface CorpusHeader {
  readonly ranks: number;
  /** Expected findings, each as kind and the set of lines; empty for `expect: none`. */
  readonly expect: readonly ExpectedFinding[];
  readonly args: readonly string[];
  /** MPI libraries the program applies to. */
  readonly mpi: readonly string[];
  /** mpiscope's expected exit status, when the header says it. */
  readonly exit?: number;
  /**
   * Fortran programs: the bindings to build it with, each a separate run (`mpi` = `use mpi`, `mpi_f08` =
   * `use mpi_f08`, `mpifh` = `include 'mpif.h'`; default `mpi mpi_f08`). Empty for C programs.
   */
  readonly bindings: readonly FortranBinding[];
  /**
   * `mode: memcheck`: built with `mpiscope cc`/`mpiscope fc` and run with `mpiscope run --memcheck` (loads and
   * stores of memory owned by pending operations are checked).
   */
  readonly memcheck: boolean;
  /**
   * `replay: ID OUTCOME`: `mpiscope run --replay-race ID` must find OUTCOME (deadlock, mismatch, different-exit,
   * same-result, not-reached); the run's race finding must carry that id (test/native/replay-race.test.ts).
   */
  readonly replay?: { readonly id: string; readonly outcome: string };
}

export type FortranBinding = 'mpi' | 'mpi_f08' | 'mpifh';
const BINDINGS: readonly string[] = ['mpi', 'mpi_f08', 'mpifh'];

/** Fortran sources of the corpus, by extension (preprocessed .F90, free-form .f90, fixed-form .f). */
export function isFortranSource(file: string): boolean {
  return /\.(F90|f90|f)$/.test(file);
}

export interface ExpectedFinding {
  readonly kind: string;
  readonly lines: readonly number[];
  /** The finding's severity, when the header names it (`expect: KIND SEVERITY lines …`). */
  readonly severity?: 'error' | 'warning' | 'note';
  /** The ranks of the finding's locations, when the header names them (`expect: KIND lines … ranks 0,1,2`). */
  readonly ranks?: readonly number[];
}

/**
 * Parse the header of a corpus program; throws on a malformed header. C: the `/* mpiscope-test … *\/`
 * comment at the top. Fortran: the `! mpiscope-test` comment line and the `!` lines that follow it.
 */
export function parseCorpusHeader(source: string, name = 'program'): CorpusHeader {
  const fortran = isFortranSource(name);
  const m = fortran
    ? /^[!cC]\s*mpiscope-test\b[^\n]*\n((?:[!cC][^\n]*\n)*)/m.exec(source)
    : /\/\*\s*mpiscope-test\b([\s\S]*?)\*\//.exec(source);
  if (m === null)
    throw new Error(
      `${name}: no ${fortran ? '"! mpiscope-test" comment' : '/* mpiscope-test ... */'} header`,
    );
  let ranks: number | undefined;
  let bindings: FortranBinding[] = fortran ? ['mpi', 'mpi_f08'] : [];
  let exit: number | undefined;
  let args: string[] = [];
  let mpi = ['openmpi', 'mpich'];
  let memcheck = false;
  let replay: CorpusHeader['replay'];
  const expect: ExpectedFinding[] = [];
  let none = false;
  for (const raw of (m[1] ?? '').split('\n')) {
    const line = (fortran ? raw.replace(/^[!cC]/, '') : raw.replace(/^\s*\*?\s?/, '')).trim();
    if (line === '') continue;
    const [key, ...restParts] = line.split(':');
    const value = restParts.join(':').trim();
    switch (key?.trim()) {
      case 'ranks':
        ranks = Number(value);
        break;
      case 'exit':
        exit = Number(value);
        break;
      case 'args':
        args = value.split(/\s+/).filter((a) => a !== '');
        break;
      case 'mpi':
        mpi = value.split(/\s+/).filter((a) => a !== '');
        break;
      case 'mode':
        if (value !== 'memcheck')
          throw new Error(`${name}: cannot read "mode: ${value}" (the only mode is memcheck)`);
        memcheck = true;
        break;
      case 'replay': {
        const r = /^(\d+\.\d+\.\d+)\s+(deadlock|mismatch|different-exit|same-result|not-reached)$/.exec(
          value,
        );
        if (r === null)
          throw new Error(`${name}: cannot read "replay: ${value}" (want "replay: RANK.K.SENDER OUTCOME")`);
        replay = { id: r[1] as string, outcome: r[2] as string };
        break;
      }
      case 'bindings': {
        const list = value.split(/\s+/).filter((a) => a !== '');
        const bad = list.find((b) => !BINDINGS.includes(b));
        if (!fortran) throw new Error(`${name}: "bindings:" is for Fortran programs`);
        if (bad !== undefined || list.length === 0)
          throw new Error(`${name}: cannot read "bindings: ${value}" (want some of ${BINDINGS.join(' ')})`);
        bindings = list as FortranBinding[];
        break;
      }
      case 'expect': {
        if (value === 'none') {
          none = true;
          break;
        }
        const e =
          /^([a-z-]+)(?:\s+(error|warning|note))?\s+lines\s+([\d,\s]+?)(?:\s+ranks\s+([\d,\s]+))?$/.exec(
            value,
          );
        if (e === null)
          throw new Error(
            `${name}: cannot read "expect: ${value}" (want "expect: KIND lines L1,L2" or "expect: KIND SEVERITY lines L1,L2", optionally followed by "ranks R1,R2")`,
          );
        const lines = [...new Set((e[3] ?? '').split(',').map((s) => Number(s.trim())))].sort(
          (a, b) => a - b,
        );
        const severity = e[2] as ExpectedFinding['severity'];
        const ranks =
          e[4] === undefined
            ? undefined
            : [...new Set(e[4].split(',').map((r) => Number(r.trim())))].sort((a, b) => a - b);
        expect.push({
          kind: e[1] as string,
          lines,
          ...(severity !== undefined ? { severity } : {}),
          ...(ranks !== undefined ? { ranks } : {}),
        });
        break;
      }
      default:
        // Free text after the fields (a description) is allowed.
        break;
    }
  }
  if (ranks === undefined || !Number.isInteger(ranks) || ranks < 1)
    throw new Error(`${name}: header needs "ranks: N"`);
  if (none && expect.length > 0) throw new Error(`${name}: "expect: none" together with other expectations`);
  if (!none && expect.length === 0) throw new Error(`${name}: header has no "expect:" line`);
  return {
    ranks,
    expect,
    args,
    mpi,
    bindings,
    memcheck,
    ...(exit !== undefined ? { exit } : {}),
    ...(replay !== undefined ? { replay } : {}),
  };
}

/** A finding reduced to what the corpus compares: "kind lines a,b,c". */
export function findingKey(kind: string, lines: readonly number[]): string {
  return `${kind} lines ${[...new Set(lines)].sort((a, b) => a - b).join(',')}`;
}
