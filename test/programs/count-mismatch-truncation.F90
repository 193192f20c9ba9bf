! mpiscope-test
! ranks: 2
! expect: count-mismatch lines 20,22
! bindings: mpi mpi_f08 mpifh
!
! Rank 0 sends eight INTEGERs into a four-INTEGER receive. MPI_ERRORS_RETURN turns MPI_ERR_TRUNCATE
! into an ierror instead of an abort.
#include "mpiscope-fortran.h"
program count_mismatch_truncation
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, data(8)

  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  data = 3
  if (rank == 0) then
    call MPI_Send(data, 8, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(data, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) print '(a)', 'rank 1: the receive reported an error'
  end if
  call MPI_Finalize(ierr)
end program
