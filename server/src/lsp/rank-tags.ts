/**
 * Attributes mpirun's merged output to ranks. mpirun prints every rank's output on its own stdout and
 * stderr; asked to, it tags each line with the rank (Open MPI `--tag-output`: "[1,3]<stdout>:text";
 * MPICH `-prepend-rank`: "[3] text"; Slurm's srun `--label`: "3: text"). This works around the session
 * emitting output with no rank.
 */

/** How the launcher tags lines: Open MPI's mpirun, MPICH's Hydra, or srun (for either MPI). */
export type MpiFlavorName = 'openmpi' | 'mpich' | 'srun';

/** The launcher option that makes it tag each output line with its rank. */
export function tagOption(flavor: MpiFlavorName): string {
  return flavor === 'openmpi' ? '--tag-output' : flavor === 'mpich' ? '-prepend-rank' : '--label';
}

const TAGS: Record<MpiFlavorName, RegExp> = {
  openmpi: /^\[\d+,(\d+)\]<(?:stdout|stderr|stddiag)>:/,
  mpich: /^\[(\d+)\] /,
  srun: /^ *(\d+): /,
};

/** Splits a tagged line into its rank and text; an untagged line (mpirun's own) has no rank. */
export function untag(line: string, flavor: MpiFlavorName): { rank: number | undefined; text: string } {
  const match = TAGS[flavor].exec(line);
  if (!match?.[1]) return { rank: undefined, text: line };
  return { rank: Number(match[1]), text: line.slice(match[0].length) };
}

type Emit = (text: string, stream: 'stdout' | 'stderr', rank: number | undefined) => void;

/** Cuts output chunks into whole lines (keeping a partial line per stream) and emits each untagged. */
export class TaggedLines {
  private readonly partial = { stdout: '', stderr: '' };

  constructor(
    private readonly flavor: MpiFlavorName,
    private readonly emit: Emit,
  ) {}

  write(chunk: string, stream: 'stdout' | 'stderr'): void {
    const joined = this.partial[stream] + chunk;
    const cut = joined.lastIndexOf('\n');
    this.partial[stream] = joined.slice(cut + 1);
    if (cut < 0) return;
    for (const line of joined.slice(0, cut).split('\n')) {
      const { rank, text } = untag(line, this.flavor);
      this.emit(`${text}\n`, stream, rank);
    }
  }

  flush(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.partial[stream];
      this.partial[stream] = '';
      if (rest !== '') {
        const { rank, text } = untag(rest, this.flavor);
        this.emit(text, stream, rank);
      }
    }
  }
}
