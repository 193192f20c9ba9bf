! mpiscope-test
! ranks: 3
! expect: rma-race lines 28,30
! bindings: mpi mpi_f08
!
! Ranks 1 and 2 both put a value into element 1 of rank 0's window between the same two fences: which
! value rank 0 sees afterwards depends on timing (MPI calls the result undefined).
#include "mpiscope-fortran.h"
program rma_race_fence_put_put
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, mine
  integer, allocatable :: window_mem(:)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  WIN_T :: win

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  allocate(window_mem(4))
  window_mem = 0
  mine = 100 + rank
  winsize = 16
  disp = 0
  call MPI_Win_create(window_mem, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (rank == 1) then
    call MPI_Put(mine, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr)
  else if (rank == 2) then
    call MPI_Put(mine, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr)
  end if
  call MPI_Win_fence(0, win, ierr)
  if (rank == 0) print '(a,i0)', 'element 1 is ', window_mem(1)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program
