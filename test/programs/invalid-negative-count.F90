! mpiscope-test
! ranks: 2
! expect: invalid-argument lines 20
! bindings: mpi mpi_f08 mpifh
!
! Rank 0 sends a negative number of elements. MPI_ERRORS_RETURN makes the library return an error in
! ierror instead of aborting, so both ranks finalize normally.
#include "mpiscope-fortran.h"
program invalid_negative_count
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, value(4)

  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  value = 1
  if (rank == 0) then
    call MPI_Send(value, -1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
    if (ierr == MPI_SUCCESS) print '(a)', 'the library accepted it'
  end if
  call MPI_Finalize(ierr)
end program
