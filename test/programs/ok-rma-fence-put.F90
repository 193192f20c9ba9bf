! mpiscope-test
! ranks: 3
! expect: none
! bindings: mpi mpi_f08 mpifh
!
! One-sided: every other rank puts its rank into its own slot of rank 0's window (MPI_Win_create over a
! heap array, MPI_ADDRESS_KIND size and displacement) between two fences; the window is freed.
#include "mpiscope-fortran.h"
program ok_rma_fence_put
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, nprocs, mine, i
  integer, allocatable :: slots(:)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  WIN_T :: win

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(slots(0:nprocs - 1))
  slots = -1
  winsize = nprocs * 4
  call MPI_Win_create(slots, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (rank > 0) then
    mine = rank
    disp = rank
    call MPI_Put(mine, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr)
  end if
  call MPI_Win_fence(0, win, ierr)
  if (rank == 0) then
    do i = 1, nprocs - 1
      if (slots(i) /= i) print '(a,i0)', 'wrong slot ', i
    end do
  end if
  call MPI_Win_free(win, ierr)
  deallocate(slots)
  call MPI_Finalize(ierr)
end program
