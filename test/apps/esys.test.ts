// ESyS-Particle (discrete elements; C++ with an embedded Python driver, Open MPI only in Debian): rank 0 is the
// master that runs the Python script, the others are workers in a communicator made with MPI_Comm_create; the
// master broadcasts commands and gathers fields, the workers pack each particle one double per MPI_Pack and swap
// their boundaries with MPI_Sendrecv on a Cartesian communicator. Three ranks made 187 million MPI_Pack calls in a
// 300-step run, which the shim now samples (native-shim/spec/README.md, "quiet"); with two ranks (one worker) the
// tier sees the master and worker protocol. A random packing of spheres falls onto a floor for 1000 steps.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { esysResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-esys-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['esysparticle', 'mpirun.openmpi']));

// One worker (mpiDimList 1 x 1 x 1) for the two ranks; the packing's seed is fixed by the library (measured: the
// same floor forces in every run, bare or not).
const SCRIPT = `from esys.lsm import *
from esys.lsm.util import Vec3, BoundingBox
from esys.lsm.geometry import *
sim = LsmMpi(numWorkerProcesses=1, mpiDimList=[1, 1, 1])
sim.initNeighbourSearch(particleType="NRotSphere", gridSpacing=2.5, verletDist=0.5)
sim.setNumTimeSteps(1000)
sim.setTimeStepSize(0.001)
sim.setSpatialDomain(BoundingBox(Vec3(-20, -20, -20), Vec3(20, 20, 20)))
packer = RandomBoxPacker(minRadius=0.4, maxRadius=1.0, cubicPackRadius=1.1, maxInsertFails=1000,
    bBox=BoundingBox(Vec3(-6, -10, -6), Vec3(6, 0, 6)), circDimList=[False, False, False], tolerance=1.0e-5)
packer.generate()
for p in packer.getSimpleSphereCollection():
    sim.createParticle(NRotSphere(id=p.getId(), posn=p.getPosn(), radius=p.getRadius(), mass=1.0))
sim.createInteractionGroup(GravityPrms(name="earth-gravity", acceleration=Vec3(0, -9.81, 0)))
sim.createWall(name="floor", posn=Vec3(0, -10, 0), normal=Vec3(0, 1, 0))
sim.createInteractionGroup(NRotElasticWallPrms(name="floorWall", wallName="floor", normalK=10000.0))
sim.createInteractionGroup(NRotElasticPrms(name="elastic_repulsion", normalK=10000.0, scaling=True))
sim.createFieldSaver(WallVectorFieldSaverPrms(wallName="floor", fieldName="Force", fileName="floor_force.dat",
    fileFormat="RAW_SERIES", beginTimeStep=0, endTimeStep=1000, timeStepIncr=50))
sim.run()
`;

test('ESyS-Particle spheres falling on a floor (Open MPI, C++ and Python)', async (t) => {
  await checkApp(
    t,
    {
      name: 'esys fall',
      flavor: 'openmpi',
      program: 'esysparticle',
      args: ['fall.py'],
      prepare: (dir) => writeFileSync(join(dir, 'fall.py'), SCRIPT),
      results: esysResults,
      minCallsPerRank: 10_000,
      minCallsOf: { MPI_Bcast: 5_000, MPI_Barrier: 5_000 },
      known: {
        'resource-leak':
          "ESyS-Particle's SGetType makes the MPI datatypes of Vec3 and of pair<int, Vec3> once and keeps them for the run, and TML_CartComm never frees the workers' Cartesian communicator",
      },
    },
    work,
  );
});
