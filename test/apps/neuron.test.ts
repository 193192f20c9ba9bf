// NEURON (C/C++ with its hoc interpreter; `nrniv -mpi`, Debian's neuron, Open MPI): a ring of 16
// Hodgkin-Huxley cells spread over the ranks by ParallelContext, each cell's spike exciting the next one 1 ms
// later; spikes cross ranks in NEURON's spike exchange (MPI_Allgather/Allgatherv every 1 ms of simulated
// time), then pc.runworker()/pc.done() run its bulletin board (MPI_Send/Probe/Recv on a duplicated world).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { neuronResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-neuron-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['nrniv', 'mpirun.openmpi']));

/** The ring (hoc): cells round-robin over the ranks, one stimulus at cell 0, 500 ms, every spike printed. */
const RING = `load_file("stdrun.hoc")
objref pc
pc = new ParallelContext()
ncell = 16
objref cells, nclist, stim, ncstim, c, nc, nil, target, tvec, idvec
cells = new List()
nclist = new List()
begintemplate Cell
public soma, syn
create soma
objref syn
proc init() {
  soma { L = 20  diam = 20  insert hh  syn = new ExpSyn(0.5)  syn.tau = 2 }
}
endtemplate Cell
for (i = pc.id; i < ncell; i += pc.nhost) {
  c = new Cell()
  cells.append(c)
  pc.set_gid2node(i, pc.id)
  c.soma nc = new NetCon(&v(0.5), nil)
  nc.threshold = -10
  pc.cell(i, nc)
}
for (i = pc.id; i < ncell; i += pc.nhost) {
  target = cells.object(int(i / pc.nhost))
  nc = pc.gid_connect((i + ncell - 1) % ncell, target.syn)
  nc.delay = 1
  nc.weight = 0.05
  nclist.append(nc)
}
if (pc.gid_exists(0)) {
  stim = new NetStim()
  stim.number = 1
  stim.start = 1
  ncstim = new NetCon(stim, pc.gid2cell(0).syn)
  ncstim.delay = 0
  ncstim.weight = 0.05
}
tvec = new Vector()
idvec = new Vector()
pc.spike_record(-1, tvec, idvec)
pc.set_maxstep(10)
stdinit()
pc.psolve(500)
nspk = pc.allreduce(tvec.size(), 1)
if (pc.id == 0) printf("spikes %d\\n", nspk)
for j = 0, tvec.size() - 1 printf("spike %.3f %d\\n", tvec.x[j], idvec.x[j])
pc.barrier()
pc.runworker()
pc.done()
quit()
`;

test('NEURON nrniv -mpi (Open MPI: spike exchange of a ring network, its bulletin board)', async (t) => {
  await checkApp(
    t,
    {
      name: 'neuron ring',
      flavor: 'openmpi',
      program: 'nrniv',
      args: ['-mpi', 'ring.hoc'],
      prepare: (dir) => writeFileSync(join(dir, 'ring.hoc'), RING),
      results: neuronResults,
      minCallsPerRank: 500,
      known: {
        'resource-leak':
          'NEURON duplicates MPI_COMM_WORLD for its bulletin board and spike exchange, and makes a datatype and a reduction op for its spikes, and frees none of them before MPI_Finalize',
        'unmatched-message':
          "a worker's last request to the bulletin board (tag 15, on NEURON's duplicate of the world) reaches the master after pc.done() stopped serving: never received",
      },
    },
    work,
  );
});
