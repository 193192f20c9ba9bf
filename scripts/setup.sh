#!/usr/bin/env bash
# Everything mpiscope needs, from a fresh clone, idempotent: an MPI (Open MPI from Debian when run as root
# without one), gfortran (for mpif90), addr2line, the npm dependencies, the bundles, and the shim for every
# installed MPI.
# Usage: bash scripts/setup.sh [--with-mpich] [--with-apps]
#   --with-mpich  also installs MPICH, for the test suite, and when root what the cluster and slurm tiers use:
#                 iproute2 for the namespace hosts, Slurm and munge
#   --with-apps   also installs the real MPI applications the apps tier runs (test/apps): LAMMPS and its
#                 examples, HPC Challenge, NWChem built for Open MPI and for MPICH, Elk, ScaLAPACK's test drivers,
#                 GROMACS, Quantum ESPRESSO with its examples, MPB, CP2K, OpenFOAM with its tutorials, PETSc with its
#                 examples, ESyS-Particle, and the rest test/apps/README.md lists (mpi4py and parallel h5py, PnetCDF's
#                 tools…)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'mpiscope setup: %s\n' "$*" >&2; }
fail() { say "$*"; exit 2; }

with_mpich=0
with_apps=0
for arg in "$@"; do
  case "$arg" in
    --with-mpich) with_mpich=1 ;;
    --with-apps) with_apps=1 ;;
    *) fail "unknown option $arg (known: --with-mpich, --with-apps)" ;;
  esac
done

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$node_major" -ge 20 ] || fail "Node.js 20 or newer is needed (found: $(node --version 2>/dev/null || echo none)); install it and run again"

# Debian packages we need, by the command that proves each is there.
missing=()
command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 || missing+=(openmpi-bin libopenmpi-dev)
if [ "$with_mpich" = 1 ]; then
  command -v mpicc.mpich >/dev/null 2>&1 || missing+=(mpich libmpich-dev)
  command -v mpicc.openmpi >/dev/null 2>&1 || missing+=(openmpi-bin libopenmpi-dev)
fi
# The applications are large and only the apps tier needs them: without root, say so and go on (that tier
# then fails with the same advice), rather than stop the other tiers.
apps=()
if [ "$with_apps" = 1 ]; then
  command -v lmp >/dev/null 2>&1 || apps+=(lammps)
  [ -f /usr/share/lammps/examples/melt/in.melt ] || apps+=(lammps-examples)
  command -v hpcc >/dev/null 2>&1 || apps+=(hpcc)
  command -v nwchem.openmpi >/dev/null 2>&1 || apps+=(nwchem-openmpi)
  command -v nwchem.mpich >/dev/null 2>&1 || apps+=(nwchem-mpich)
  command -v elk-lapw >/dev/null 2>&1 || apps+=(elk-lapw)
  [ -x /usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xdlu ] || apps+=(scalapack-mpi-test)
  command -v gmx_mpi >/dev/null 2>&1 || apps+=(gromacs)
  command -v pw.x >/dev/null 2>&1 || apps+=(quantum-espresso)
  # The pseudopotential the test uses comes with the examples, a package quantum-espresso only recommends.
  [ -f /usr/share/doc/quantum-espresso/examples/EPW/diamond/pp/C_3.98148.UPF.gz ] || apps+=(quantum-espresso-data)
  command -v mpb-mpi >/dev/null 2>&1 || apps+=(mpb-mpi)
  command -v cp2k.popt >/dev/null 2>&1 || apps+=(cp2k)
  command -v icoFoam >/dev/null 2>&1 || apps+=(openfoam)
  [ -d /usr/share/doc/openfoam-examples/examples/incompressible/icoFoam/cavity ] || apps+=(openfoam-examples)
  pkg-config --exists PETSc 2>/dev/null || apps+=(libpetsc-real3.18-dev)
  [ -f /usr/share/petsc/3.18/share/petsc/examples/src/snes/tutorials/ex19.c ] || apps+=(libpetsc3.18-dev-examples)
  command -v esysparticle >/dev/null 2>&1 || apps+=(esys-particle)
  [ -x /usr/lib/mumps/dsimpletest ] || apps+=(mumps-test)
  command -v Ray >/dev/null 2>&1 || apps+=(ray)
  command -v abinit >/dev/null 2>&1 || apps+=(abinit)
  # The pseudopotentials the ABINIT test reads (abinit only recommends them).
  [ -f /usr/share/abinit/psp/Pseudodojo_nc_sr_04_pw_standard_psp8/Si.psp8 ] || apps+=(abinit-data)
  command -v meep >/dev/null 2>&1 || apps+=(meep-openmpi)
  command -v mplrs >/dev/null 2>&1 || apps+=(mplrs)
  [ -x /usr/lib/abyss/ABYSS-P ] || apps+=(abyss)
  command -v parform >/dev/null 2>&1 || apps+=(form)
  command -v dgord >/dev/null 2>&1 || apps+=(ptscotch)
  command -v nrniv >/dev/null 2>&1 || apps+=(neuron)
  # Python over MPI (the mpi4py test runs python3 with a script).
  [ -f /usr/lib/python3/dist-packages/mpi4py/__init__.py ] || apps+=(python3-mpi4py)
  # NumPy, which the mpi4py script's buffers are (python3-mpi4py only suggests it).
  /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || apps+=(python3-numpy)
  [ -d /usr/lib/python3/dist-packages/h5py/_debian_h5py_mpi ] || apps+=(python3-h5py-mpi)
  command -v ncmpidiff >/dev/null 2>&1 || apps+=(pnetcdf-bin)
  command -v FreeFem++-mpi >/dev/null 2>&1 || apps+=(freefem++)
  [ -f /usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real/lib/python3/dist-packages/petsc4py/__init__.py ] ||
    apps+=(python3-petsc4py-real3.18)
fi
if [ ${#apps[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    missing+=("${apps[@]}")
  else
    say "the apps tier needs ${apps[*]}: install them (e.g. sudo apt-get install ${apps[*]}); going on without"
  fi
fi
command -v addr2line >/dev/null 2>&1 || missing+=(binutils)
# Call sites are resolved with llvm-addr2line when it is installed: binutils 2.40's addr2line names the wrong file
# for a header's code at the start of a DWARF 5 line table (server/src/session/site-resolver.ts), which the corpus'
# buffer-overlap-irecv-in-header.c checks.
command -v llvm-addr2line >/dev/null 2>&1 || missing+=(llvm)
# mpiscope map partitions ranks onto hosts with METIS's gpmetis.
command -v gpmetis >/dev/null 2>&1 || missing+=(metis)
# The cluster and slurm tiers need root anyway (namespaces, Slurm's daemons), and skip with the reason
# without it: so these are installed when root and never a reason to fail.
if [ "$with_mpich" = 1 ] && [ "$(id -u)" = 0 ]; then
  command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 || missing+=(iproute2)
  command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
  command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 && command -v srun >/dev/null 2>&1 ||
    missing+=(slurm-wlm)
  command -v munged >/dev/null 2>&1 && command -v mungekey >/dev/null 2>&1 || missing+=(munge)
fi
# The native tier's fuzzer of the shim's record encoder (native-shim/fuzz): clang and its libFuzzer and
# sanitizer runtimes. Proved by linking an empty fuzz target; the shim itself builds without clang.
if [ "$with_mpich" = 1 ]; then
  # mpiscope run --tls makes its session certificate with the openssl command (the native and cluster tiers'
  # TLS tests); the ranks load libssl3, which every Debian has.
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  command -v clang >/dev/null 2>&1 || missing+=(clang)
  echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
    clang -fsanitize=fuzzer,address,undefined -x c - -o /dev/null >/dev/null 2>&1 || missing+=(libclang-rt-dev)
fi
command -v cc >/dev/null 2>&1 || missing+=(gcc)
# mpif90 needs the Fortran compiler: the Fortran programs of the corpus (and users' Fortran codes).
command -v gfortran >/dev/null 2>&1 || missing+=(gfortran)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing from Debian: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    fail "missing ${missing[*]}: install them (e.g. sudo apt-get install ${missing[*]}) and run again"
  fi
fi

# npm dependencies: only when the lock changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi

say "building"
node scripts/build.mjs

# The shim, once per installed MPI, with that MPI's own compiler wrapper.
built=0
for flavor in openmpi mpich; do
  if command -v "mpicc.$flavor" >/dev/null 2>&1; then
    bash native-shim/build.sh "mpicc.$flavor" "native-shim/build/$flavor"
    built=1
  fi
done
if [ "$built" = 0 ]; then
  bash native-shim/build.sh mpicc native-shim/build/default
fi
say "ready"
