program t1
  use mpi
  implicit none
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
