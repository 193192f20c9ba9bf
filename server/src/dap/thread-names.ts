import type { RankState } from '../engine/model/types';

/** DAP thread ids start at 1 (some clients treat 0 as "no thread"), so rank r is thread r + 1. */
export function threadIdOf(rank: number): number {
  return rank + 1;
}

export function rankOf(threadId: number): number {
  return threadId - 1;
}

/** Shortens "MPI_Recv from rank 0, tag 7" to "MPI_Recv from 0, tag 7" for the Call Stack view. */
function shortDetail(detail: string): string {
  return detail.replace(/\b(from|to) rank (-?\d+)/g, '$1 $2');
}

/** The Call Stack name of a rank: "rank 2 — MPI_Recv from 0, tag 7". */
export function threadName(rank: number, state: RankState | undefined): string {
  if (!state) return `rank ${rank} — starting`;
  switch (state.state) {
    case 'in-call':
    case 'blocked': {
      const what = state.call ? shortDetail(state.call.detail || state.call.call) : 'in MPI';
      return `rank ${rank} — ${what}${state.state === 'blocked' ? ' (blocked)' : ''}`;
    }
    case 'running':
      return `rank ${rank} — running`;
    case 'finalized':
      return `rank ${rank} — finalized`;
    case 'ended':
      return `rank ${rank} — ended${state.ended ? ` (${state.ended})` : ''}`;
  }
}
