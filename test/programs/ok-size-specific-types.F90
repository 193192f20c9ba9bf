! mpiscope-test
! ranks: 2
! expect: none
! bindings: mpi mpi_f08
!
! Size-specific types are their default-kind twins with gfortran: MPI_REAL8 received as
! MPI_DOUBLE_PRECISION, MPI_INTEGER4 as MPI_INTEGER; a vector type and a split communicator, both freed.
#include "mpiscope-fortran.h"
program ok_size_specific_types
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, color, subrank, ivals(4), grid(3, 4)
  real(8) :: x(2)
  double precision :: y(2)
  DATATYPE_T :: row
  COMM_T :: half

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = 1.5d0
  ivals = rank
  grid = rank
  if (rank == 0) then
    call MPI_Send(x, 2, MPI_REAL8, 1, 0, MPI_COMM_WORLD, ierr)
    call MPI_Send(ivals, 4, MPI_INTEGER4, 1, 1, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(y, 2, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(ivals, 4, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Type_vector(4, 1, 3, MPI_INTEGER, row, ierr)
  call MPI_Type_commit(row, ierr)
  if (rank == 0) then
    call MPI_Send(grid(2, 1), 1, row, 1, 2, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(ivals, 4, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Type_free(row, ierr)
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, half, ierr)
  call MPI_Comm_rank(half, subrank, ierr)
  call MPI_Barrier(half, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
end program
