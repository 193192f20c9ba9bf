! mpiscope-test
! ranks: 2
! mode: memcheck
! expect: local-concurrency lines 21,23
! bindings: mpi mpi_f08 mpifh
!
! Rank 0 overwrites its send buffer with the next step's values before the send completed.
#include "mpiscope-fortran.h"
program lc_isend_store
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, i
  double precision :: field(8)
  REQUEST_T :: req

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  field = 1.0d0
  if (rank == 0) then
    call MPI_Isend(field, 8, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, req, ierr)
    do i = 1, 8
      field(i) = 2.0d0 * i
    end do
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(field, 8, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Finalize(ierr)
end program
