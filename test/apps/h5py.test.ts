// h5py over parallel HDF5 (Debian's python3-h5py-mpi, HDF5 1.10 built for Open MPI, driven through mpi4py): a
// script the test writes has both ranks write their blocks of two shared datasets, one independently
// (MPI_File_write_at) and one collectively (MPI_File_write_at_all through HDF5's derived datatypes and file
// views), create and fill a group of small datasets, then read another rank's blocks back. MPI-IO, which no
// other application of the tier calls.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { h5pyResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-h5py-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() =>
  requireInstalled([
    '/usr/bin/python3',
    '/usr/lib/python3/dist-packages/mpi4py/__init__.py',
    '/usr/lib/python3/dist-packages/h5py/_debian_h5py_mpi',
    'mpirun.openmpi',
  ]),
);

/** The script: parallel writes and reads of one HDF5 file (the MPI-IO driver, "mpio"). */
const SCRIPT = `from mpi4py import MPI
import h5py
import numpy as np
import sys


def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()


comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
n = 64
# each rank writes its block of rows of a shared dataset, independently and then collectively
with h5py.File("field.h5", "w", driver="mpio", comm=comm) as f:
    f.attrs["ranks"] = size
    d = f.create_dataset("field", (n * size, n), dtype="f8")
    c = f.create_dataset("coll", (n * size, n), dtype="f8", chunks=(n, n))
    rows = np.add.outer(np.arange(rank * n, (rank + 1) * n), np.arange(n)).astype("f8")
    d[rank * n:(rank + 1) * n, :] = np.sin(rows / 10.0)
    with c.collective:
        c[rank * n:(rank + 1) * n, :] = np.cos(rows / 10.0)
    g = f.create_group("steps")
    for s in range(4):
        v = g.create_dataset("s%d" % s, (size,), dtype="i8")
        v[rank] = (rank + 1) * (s + 1)
comm.Barrier()
# and reads back another rank's block
with h5py.File("field.h5", "r", driver="mpio", comm=comm) as f:
    other = (rank + 1) % size
    block = f["field"][other * n:(other + 1) * n, :]
    with f["coll"].collective:
        cb = f["coll"][other * n:(other + 1) * n, :]
    steps = [int(f["steps/s%d" % s][other]) for s in range(4)]
    say("rank %d read block of %d: %.12e %.12e steps %s" % (rank, other, block.sum(), cb.sum(), steps))
`;

test('h5py with parallel HDF5 (Open MPI: MPI-IO, independent and collective)', async (t) => {
  await checkApp(
    t,
    {
      name: 'h5py field',
      flavor: 'openmpi',
      program: '/usr/bin/python3',
      args: ['field.py'],
      prepare: (dir) => writeFileSync(join(dir, 'field.py'), SCRIPT),
      results: h5pyResults,
      minCallsPerRank: 100,
      minCallsOf: { MPI_File_open: 2, MPI_File_write_at: 5, MPI_File_write_at_all: 1, MPI_File_read_at: 5 },
    },
    work,
  );
});
