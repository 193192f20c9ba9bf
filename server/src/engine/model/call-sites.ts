/**
 * Call sites across ranks. A site is a return address, and every process has its own (ASLR), so the engine
 * cannot compare two ranks' sites by address. The shim's SITE records say which module and offset each
 * address is: the same (module, offset) on two ranks is the same line of the same program. Findings that merge
 * ranks at "the same call site" ask here, once the SITE records have arrived (at the end of the run).
 */
import type { SiteEvent } from './types';

export class CallSites {
  private readonly byRank = new Map<number, Map<number, string>>();

  onSite(e: SiteEvent): void {
    let m = this.byRank.get(e.rank);
    if (m === undefined) this.byRank.set(e.rank, (m = new Map<number, string>()));
    m.set(e.address, `${e.module}+${e.offset}`);
  }

  /** A key equal for the same call site on any rank; an address never described stays its rank's own. */
  key(rank: number, address: number): string {
    return this.byRank.get(rank)?.get(address) ?? `rank ${rank} at ${address}`;
  }
}
