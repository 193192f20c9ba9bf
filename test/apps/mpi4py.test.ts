// mpi4py (Python over MPI: Debian's python3-mpi4py, built for Open MPI) running a script the test writes: pickled
// objects point to point (mpi4py receives them with MPI_Mprobe/MPI_Mrecv) and in collectives, NumPy buffers in
// halo swaps (MPI_Isend/Irecv/Waitall), persistent requests polled with MPI_Testall, a split and a duplicate
// communicator, a nonblocking reduction, and mpi4py's object reductions (comm.allreduce, dup.scan), which run
// on a duplicate of the communicator that mpi4py caches as an attribute and frees in the attribute's delete
// function: inside MPI_Comm_free, MPI_Comm_delete_attr and MPI_Finalize.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { mpi4pyResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-mpi4py-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() =>
  requireInstalled([
    '/usr/bin/python3',
    '/usr/lib/python3/dist-packages/mpi4py/__init__.py',
    'mpirun.openmpi',
  ]),
);

/** The script: a ring of pickled messages, a 1-d heat equation, persistent requests, communicators. */
const SCRIPT = `from mpi4py import MPI
import numpy as np
import sys


def say(line):
    # one write per line: the launcher forwards each rank's output in the pieces it was written in
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()


comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

# pickled objects: send/recv (mpi4py matches them with MPI_Mprobe/MPI_Mrecv), bcast, gather
for it in range(50):
    if rank % 2 == 0:
        comm.send({"it": it, "from": rank}, dest=right, tag=it)
        got = comm.recv(source=left, tag=it)
    else:
        got = comm.recv(source=left, tag=it)
        comm.send({"it": it, "from": rank}, dest=right, tag=it)
    assert got == {"it": it, "from": left}
cfg = comm.bcast({"n": 4096, "steps": 200} if rank == 0 else None, root=0)
names = comm.gather(rank, root=0)
total = comm.allreduce(rank + 1)
if rank == 0:
    say("gathered %s allreduce %d" % (names, total))

# buffers: a 1-d heat equation, halos swapped with Isend/Irecv/Waitall, residual with Allreduce
n = cfg["n"] // size
u = np.zeros(n + 2)
u[1:-1] = np.sin(np.linspace(0, np.pi, cfg["n"])[rank * n:(rank + 1) * n])
for step in range(cfg["steps"]):
    reqs = [comm.Irecv(u[0:1], source=left, tag=1), comm.Irecv(u[-1:], source=right, tag=2),
            comm.Isend(u[-2:-1], dest=right, tag=1), comm.Isend(u[1:2], dest=left, tag=2)]
    MPI.Request.Waitall(reqs)
    u[1:-1] = u[1:-1] + 0.25 * (u[:-2] - 2 * u[1:-1] + u[2:])
    if step % 20 == 0:
        local = np.array([np.sum(u[1:-1] ** 2)])
        total = np.zeros(1)
        comm.Allreduce(local, total, op=MPI.SUM)
        if rank == 0:
            say("step %d norm %.10e" % (step, total[0]))

# persistent requests and a test loop
sbuf = np.arange(8, dtype="i") + rank
rbuf = np.empty(8, dtype="i")
ps = [comm.Send_init(sbuf, dest=right, tag=7), comm.Recv_init(rbuf, source=left, tag=7)]
acc = 0
for k in range(20):
    MPI.Prequest.Startall(ps)
    while not MPI.Request.Testall(ps):
        pass
    acc += int(rbuf.sum())
for p in ps:
    p.Free()
say("rank %d persistent %d" % (rank, acc))

# a split communicator, nonblocking and neighbourhood-free collectives, Alltoall, Scan, Sendrecv
sub = comm.Split(rank % 2, rank)
dup = comm.Dup()
x = np.full(4, rank + 1.0)
y = np.empty(4)
r = dup.Iallreduce(x, y, op=MPI.PROD)
r.Wait()
a2a = np.empty(size, dtype="i")
dup.Alltoall(np.arange(size, dtype="i") * 10 + rank, a2a)
pre = dup.scan(rank + 1)
sr = np.empty(3)
dup.Sendrecv(np.full(3, float(rank)), dest=right, recvbuf=sr, source=left)
say("rank %d prod %.1f a2a %s scan %d sr %.1f sub %d" % (rank, y[0], a2a.tolist(), pre, sr[0], sub.Get_size()))
sub.Free()
dup.Free()
`;

test('mpi4py (Open MPI: a Python script over point-to-point, collectives, requests and communicators)', async (t) => {
  await checkApp(
    t,
    {
      name: 'mpi4py heat',
      flavor: 'openmpi',
      program: '/usr/bin/python3',
      args: ['heat.py'],
      prepare: (dir) => writeFileSync(join(dir, 'heat.py'), SCRIPT),
      results: mpi4pyResults,
      minCallsPerRank: 1000,
      // The communicator mpi4py's object reductions use is freed in an attribute's delete function: proof that
      // the calls made there are seen (without them: a resource-leak of an MPI_Comm_dup on each rank).
      minCallsOf: { MPI_Comm_dup: 3, MPI_Comm_free: 4, MPI_Mprobe: 50, MPI_Isend: 400 },
    },
    work,
  );
});
