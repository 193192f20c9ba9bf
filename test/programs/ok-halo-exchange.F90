! mpiscope-test
! ranks: 4
! expect: none
! bindings: mpi mpi_f08 mpifh
!
! A 1-D Jacobi sweep with a halo exchange: nonblocking receives and sends to both neighbours (MPI_PROC_NULL
! at the ends), MPI_Waitall on the request array, and an MPI_Allreduce of the residual.
#include "mpiscope-fortran.h"
program ok_halo_exchange
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, parameter :: n = 16
  integer :: ierr, rank, nprocs, left, right, it, i
  double precision :: u(0:n+1), unew(n), local, residual
  REQUEST_T :: reqs(4)
  STATUSES_T(4) :: stats

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= nprocs) right = MPI_PROC_NULL
  u = rank
  do it = 1, 5
    call MPI_Irecv(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(u(n+1), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_Waitall(4, reqs, stats, ierr)
    do i = 1, n
      unew(i) = 0.5d0 * (u(i-1) + u(i+1))
    end do
    local = sum((unew - u(1:n))**2)
    u(1:n) = unew
    call MPI_Allreduce(local, residual, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,es10.3)', 'residual ', residual
  call MPI_Finalize(ierr)
end program
