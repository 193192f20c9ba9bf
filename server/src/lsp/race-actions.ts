import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver';
import type { RaceReplay } from '../engine/model/types';
import { REPLAY_RACE_COMMAND, type ReplayRaceArguments } from './protocol';

/** The race a message-race diagnostic carries (finding-diagnostics.ts puts it in `data`), if it is one. */
function raceOf(d: Diagnostic): RaceReplay | undefined {
  if (d.code !== 'message-race' || d.source !== 'mpiscope') return undefined;
  const race = (d.data as { race?: RaceReplay } | undefined)?.race;
  if (race === undefined || typeof race.id !== 'string' || !Array.isArray(race.alternatives))
    return undefined;
  return race;
}

/**
 * "Replay with the other message": one code action per sender the race's receive could have taken instead,
 * running the job again with the receive forced to it (SessionHub.replayRace). A prediction the engine made
 * from the recorded calls is in the title, so that the user sees it before choosing.
 */
export function raceActions(diagnostics: readonly Diagnostic[]): CodeAction[] {
  const out: CodeAction[] = [];
  const seen = new Set<string>();
  for (const d of diagnostics) {
    const race = raceOf(d);
    if (race === undefined) continue;
    for (const sender of race.alternatives) {
      const key = `${race.rank}.${race.wildcard}.${sender}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const predicted = race.predicted?.find((p) => p.sender === sender);
      const args: ReplayRaceArguments = { id: race.id, sender };
      out.push({
        title: `Replay with the other message (rank ${sender}'s)${predicted !== undefined ? ` — predicted: ${predicted.outcome.split(':')[0] ?? ''}` : ''}`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        command: { title: 'Replay with the other message', command: REPLAY_RACE_COMMAND, arguments: [args] },
      });
    }
  }
  return out;
}
