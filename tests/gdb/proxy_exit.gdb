# Run by tests/CMakeLists.txt (gdb -batch -iex "set $in_release = 0 or 1" -x proxy_exit.gdb
# proxy_exit_program): see the program.
set pagination off
break own::detail::load_proxies::leave
break own_gdb_stored
run
# Stopped as the loading thread's exit starts to give up its proxy. With $in_release, the exiting
# thread alone runs on to the release of the standing reference: it has taken the proxy's standing
# flag and not yet dropped the reference (the window a writer cannot tell from done).
set scheduler-locking on
if $in_release
  tbreak own::detail::control_block::release_shared
  continue
end
# The main thread alone stores.
set var exiting_thread_stopped = 1
thread 1
continue
# Stopped in own_gdb_stored: the main thread has printed. Everything runs to the end.
set scheduler-locking off
delete
continue
