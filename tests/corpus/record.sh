#!/bin/sh
# Re-records the outputs of tests/corpus/scripts with a real PyTorch.
#
#   PYTHON=/opt/torch-venv/bin/python sh tests/corpus/record.sh
#
# The scripts are copied to $WORKDIR (default /srv/project) and run there, so the recorded
# paths do not depend on where the repository is checked out. Needs root for the tiny /dev/shm
# (a private mount namespace: `unshare -m`); nothing outside that namespace is touched.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
WORKDIR=${WORKDIR:-/srv/project}
mkdir -p "$WORKDIR"
cp "$HERE"/scripts/*.py "$WORKDIR"/
cd "$WORKDIR" || exit 2

record() {
    name=$1
    shift
    echo "recording $name"
    timeout 300 sh -c "$*" > "$HERE/$name.txt" 2>&1
}

record worker-sigbus "$PYTHON worker_signal.py SIGBUS"
record worker-sigsegv "$PYTHON worker_signal.py SIGSEGV"
record worker-sigkill "$PYTHON worker_signal.py SIGKILL"
record worker-sigabrt "$PYTHON worker_signal.py SIGABRT"
record worker-exit-code "$PYTHON worker_exit.py"
record shm-tiny-fd "unshare -m sh -c 'mount -t tmpfs -o size=1M tmpfs /dev/shm && $PYTHON big_batches.py'"
record shm-tiny-file-system "unshare -m sh -c 'mount -t tmpfs -o size=1M tmpfs /dev/shm && $PYTHON big_batches.py file_system'"
record fd-limit-64 "ulimit -n 64; $PYTHON many_tensors.py"
record fd-limit-300 "ulimit -n 300; $PYTHON many_tensors.py"
record fd-limit-1024 "ulimit -n 1024; $PYTHON many_tensors.py"
record spawn-lambda "$PYTHON spawn_lambda.py"
record spawn-local-class "$PYTHON spawn_local_class.py"
record spawn-no-main-guard "$PYTHON spawn_no_main_guard.py"
record interactive-main-spawn "$PYTHON -q -i < interactive_main_spawn.py"
# Python 3.12 and later word the worker's __main__ differently; no PyTorch needed.
record interactive-main-spawn-py313 "${PYTHON313:-python3.13} -q -i < interactive_main_spawn_mp.py"
record timeout "$PYTHON timeout.py"
for case in prefetch_factor persistent_workers mp_context_without_workers invalid_mp_context \
    negative_num_workers negative_timeout timeout_without_workers sampler_shuffle batch_sampler \
    batch_size_none_drop_last; do
    record "arg-$(echo $case | tr _ -)" "$PYTHON bad_argument.py $case"
done
record ragged-batch "$PYTHON ragged_batch.py"
record unsupported-type "$PYTHON unsupported_type.py"
record key-error "$PYTHON key_error.py"
record too-many-workers "$PYTHON too_many_workers.py"
record start-method-twice "$PYTHON start_method_twice.py"
record mp-spawn-killed "$PYTHON mp_spawn_killed.py"
record iterator-other-process "$PYTHON iterator_other_process.py"
record empty-dataset "$PYTHON empty_dataset.py"
record ragged-in-worker "$PYTHON ragged_in_worker.py"
record spawn-pickle-module "$PYTHON spawn_pickle.py module"
record spawn-pickle-lock "$PYTHON spawn_pickle.py lock"
# h5py is not a dependency of torch: H5PY_PATH is a site-packages folder holding it.
[ -n "${H5PY_PATH:-}" ] && record spawn-pickle-h5py "PYTHONPATH=$H5PY_PATH $PYTHON spawn_pickle.py h5py"
record mmap-map-count "$PYTHON many_mappings.py"
record negative-shape-mismatch "$PYTHON shape_mismatch.py"
record negative-import-error "$PYTHON import_error.py"
record negative-state-dict "$PYTHON state_dict_error.py"
