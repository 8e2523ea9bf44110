#!/usr/bin/env bash
# Submits a sweep to Slurm as a job array of N shards and a merge that runs when all of
# them have ended (docs/scaling-out.md, "Slurm"):
#
#   bash examples/slurm/submit.sh SCENE OUT.h5 N [simphant run options...]
#   e.g. bash examples/slurm/submit.sh examples/four_bar.json /scratch/me/four_bar.h5 16 --instances 1000000
#
# OUT's folder must be on a file system that every node sees; the shards go to
# "<OUT stem>.shards/" beside it. Extra sbatch options (partition, time, GPUs) come from
# SBATCH_* environment variables or SIMPHANT_SBATCH_ARGS, e.g.
#   SIMPHANT_SBATCH_ARGS="--partition=gpu --gres=gpu:1 --time=02:00:00" bash submit.sh ...
# Prints the two job ids: the array's and the merge's.
set -euo pipefail
if [ "$#" -lt 3 ]; then
  echo "usage: submit.sh SCENE OUT.h5 N [simphant run options...]" >&2
  exit 2
fi
scene=$1 out=$2 n=$3
shift 3
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
  echo "submit.sh: N: a positive integer expected (got '$n')" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
read -r -a extra <<< "${SIMPHANT_SBATCH_ARGS:-}"
array=$(sbatch --parsable "${extra[@]}" --array="0-$((n - 1))" "$here/sweep.sbatch" "$scene" "$out" "$n" "$@")
array=${array%%;*}   # --parsable prints "id" or "id;cluster"
# afterany, not afterok: a task that failed would leave an afterok merge pending forever.
# The merge checks the shards itself and names any that did not complete.
merge=$(SIMPHANT_SWEEP_JOB=$array sbatch --parsable "${extra[@]}" --dependency="afterany:$array" "$here/merge.sbatch" "$out" "$n")
merge=${merge%%;*}
echo "array job $array (shards 0-$((n - 1))), merge job $merge"
