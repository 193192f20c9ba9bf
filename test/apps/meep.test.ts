// Meep, the finite-difference time-domain electromagnetics simulator (C++ libmeep, driven by its Scheme
// interface `meep` over libctl and Guile; Debian's meep-openmpi builds it for Open MPI): the cell is split
// into chunks over the ranks, which swap their boundary fields every time step, and a field value read at a
// point is summed over the ranks. A continuous source launches a wave into a dielectric waveguide inside PML.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { meepResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-meep-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['meep', 'mpirun.openmpi']));

/** A 16 x 8 cell, a waveguide of epsilon 12 along x, Ez read at (5, 0) every 10 time units up to 100. */
const CONTROL = `(set! geometry-lattice (make lattice (size 16 8 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity)
                           (material (make dielectric (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15)))
                          (component Ez) (center -7 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 10)
(define probe (lambda () (print "probe: " (get-field-point Ez (vector3 5 0)) "\\n")))
(run-until 100 (at-every 10 probe))
`;

test('Meep (Open MPI, C++ under a Scheme driver: chunk boundaries every step)', async (t) => {
  await checkApp(
    t,
    {
      name: 'meep waveguide',
      flavor: 'openmpi',
      program: 'meep',
      args: ['waveguide.ctl'],
      prepare: (dir) => writeFileSync(join(dir, 'waveguide.ctl'), CONTROL),
      results: meepResults,
      minCallsPerRank: 1_000,
    },
    work,
  );
});
