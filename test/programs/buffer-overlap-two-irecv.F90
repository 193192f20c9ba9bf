! mpiscope-test
! ranks: 3
! expect: buffer-overlap lines 20,21
! bindings: mpi mpi_f08 mpifh
!
! Rank 0 receives five INTEGERs from each of ranks 1 and 2 into slices of one array that overlap in
! elements 4 and 5: which value ends up there depends on which message lands last.
#include "mpiscope-fortran.h"
program buffer_overlap_two_irecv
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, data(8), mine(5)
  REQUEST_T :: reqs(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  data = 0
  if (rank == 0) then
    call MPI_Irecv(data(1), 5, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(data(4), 5, MPI_INTEGER, 2, 0, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  else
    mine = rank
    call MPI_Send(mine, 5, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
