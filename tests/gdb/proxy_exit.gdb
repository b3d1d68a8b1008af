# Run by tests/CMakeLists.txt (gdb -batch -x proxy_exit.gdb proxy_exit_program): see the program.
set pagination off
break own::detail::load_proxies::leave
break own_gdb_stored
run
# Stopped as the loading thread's exit starts to give up its proxy: the main thread alone stores.
set var exiting_thread_stopped = 1
thread 1
set scheduler-locking on
continue
# Stopped in own_gdb_stored: the main thread has printed. Everything runs to the end.
set scheduler-locking off
delete
continue
