# kill_lineage.sh: the crash-consistency test, sourced by test_kill_resume.sh (a plain scan)
# and test_tempering_resume.sh (parallel tempering), which provide $mcf, ok and bad.
#
# kl_reference makes the uninterrupted runs.  kill_lineage then kills one run folder at
# random instants again and again (SIGKILL, SIGTERM, SIGINT, shuffled in blocks of 3:2:1)
# and continues it each time with `mcf resume`, on 1 or 2 threads at random, until at least
# $kills_needed kills have landed between checkpoints (1 in 6 is aimed at the start-up
# instead; a kill may also land before the first checkpoint or while a checkpoint is being
# written); then $kills_end kills are aimed at the end (from the last sweep on: the final
# checkpoint, results.tsv, the plots, or after it all); then one resume is not killed.
# Every file of the finished folder but the log, and the summary on standard output, must
# be byte-identical to the uninterrupted run's.  After every kill:
#  - exit status 128 + signal, or 0 when the command had finished first; no error (the
#    folder is never refused) and no sanitizer report;
#  - a signal caught during the sweeps says where it stopped and how to resume, and the
#    checkpoint is at that sweep; otherwise the checkpoint is where it was, at a multiple
#    of checkpoint_every, or at the end (it never moves back and never disappears);
#  - results.tsv only with the checkpoint at the end; every file that a reader may see
#    (config.ini, results.tsv, curves, plots) byte-identical to the reference's already;
#  - temporaries only of commands killed here, gone once the next command has taken the
#    folder (its first log line); none at the end, and no .previous folder;
#  - the next command's log says it resumed from that checkpoint (or the first sweep).
# The cost is about one run, plus the start-ups and the sweeps that SIGKILLs lose.  The
# kills are spread by the time a sweep takes, from the reference runs, lowered whenever a
# killed command shows it faster; should a run still reach its end with kills missing
# (the machine much faster than measured), a fresh run folder takes the rest, and is
# compared the same way.
#
# The draws come from bash's $RANDOM seeded with MCF_TEST_KILL_SEED (printed): the same
# seed gives the same signals, thread counts, aims and fractions of each time slice; the
# instants themselves (printed for each kill) follow the machine's speed.

# between checkpoints, per scan (issue 17: ">= 20 random instants"); KL_KILLS lowers it for
# the tests of one model's or sampler's state (test_hmc, test_hmc_dt: 6 unless MCF_TEST_LONG),
# whose question is whether that state is in the checkpoint, not the core's crash consistency
# (test_kill_resume and test_tempering_resume keep 20)
kills_needed=${KL_KILLS:-20}
kills_end=3     # aimed at the end of the run, after those
kills_max=80    # kills that have not got there by then fail the test

# what a command writes to the log when it begins: its first line, after it has locked the
# folder and removed what killed commands left ...
kl_re_start=' mcf [^ ]*: (starting|resuming) '
# ... and when it begins the sweeps: `mcf run`'s first line, `mcf resume`'s checkpoint line
kl_re_sweeps=' mcf [^ ]*: starting |resumed from the checkpoint at sweep|no checkpoint in '

# Lines of $kl_run/log matching $1 (no process forked: this runs in a polling loop): their
# count in kl_n, the last in kl_last.
kl_count() {
  local line
  kl_n=0 kl_last=
  [ -f "$kl_run/log" ] || return 0
  while IFS= read -r line; do
    [[ $line =~ $1 ]] && { kl_n=$((kl_n + 1)); kl_last=$line; }
  done <"$kl_run/log"
}

# The sweep of $kl_run/checkpoint (its header's position) in kl_at; empty when there is
# none, "bad" when it is not an mcf checkpoint.
kl_checkpoint() {
  kl_at=
  [ -f "$kl_run/checkpoint" ] || return 0
  kl_at=$(od -An -t u8 -j 32 -N 8 "$kl_run/checkpoint" | tr -d ' ')
  [ "$(head -c 8 "$kl_run/checkpoint")" = MCF-CKPT ] && [ -n "$kl_at" ] || kl_at=bad
}

# Microseconds $2 as seconds with 3 decimals, into variable $1.
kl_secs() { printf -v "$1" '%d.%03d' $(($2 / 1000000)) $(($2 % 1000000 / 1000)); }

# A random number in [$1, $2) into kl_us.
kl_uniform() { kl_us=$(($1 + ($2 - $1) * (RANDOM * 32768 + RANDOM) / 1073741824)); }

# 0 when $1 and $2 are the same bytes: two files, or two folders (series/) file by file
same_bytes() {
  if [ -d "$1" ] && [ -d "$2" ]; then diff -rq "$1" "$2" >/dev/null; else cmp -s "$1" "$2"; fi
}

# The names of the files that differ between run folders $1 and $2, or that only one has
# (the log left out), one line each.
folder_diff() {
  local f
  for f in $( { ls -A "$1"; ls -A "$2"; } | sort -u); do
    [ "$f" = log ] || same_bytes "$1/$f" "$2/$f" || echo "$f"
  done
}

# kl_reference CONFIG TOTAL: the uninterrupted runs, each in a folder run/ (the output's
# name is in config.ini, and so in the checkpoint): ref/run on 2 threads, timed, and
# one/run on 1 thread, whose files but the log, and whose summary, must be the same bytes;
# then the finished ref/run resumed, timed: it must rewrite the same bytes, from its last
# checkpoint.  Sets kl_dur (the shorter run's microseconds), kl_up (until the reference's
# first sweep) and kl_fin (the resume's), or exits.
kl_reference() {
  local cfg=$1 total=$2 pid t0 t1 ref_us one_us
  mkdir ref one || exit 1
  kl_run=ref/run kl_up=
  t0=${EPOCHREALTIME/[.,]/}
  (cd ref && OMP_NUM_THREADS=2 exec "$mcf" run "../$cfg" --set run.output=run --no-progress) \
    >ref/run.out 2>ref/run.err &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    kl_count "$kl_re_sweeps"
    [ "$kl_n" -gt 0 ] && { kl_up=$((${EPOCHREALTIME/[.,]/} - t0)); break; }
    sleep 0.005
  done
  wait "$pid" || { cat ref/run.err; echo "reference run failed"; exit 1; }
  t1=${EPOCHREALTIME/[.,]/}
  ref_us=$((t1 - t0)) kl_up=${kl_up:-$(((t1 - t0) / 100))}
  local d u; kl_secs d "$ref_us"; kl_secs u "$kl_up"
  ok "reference run on 2 threads (${d}s, the first sweep after ${u}s)"

  t0=${EPOCHREALTIME/[.,]/}
  (cd one && OMP_NUM_THREADS=1 exec "$mcf" run "../$cfg" --set run.output=run --no-progress) \
    >one/run.out 2>/dev/null
  one_us=$((${EPOCHREALTIME/[.,]/} - t0))
  kl_dur=$((one_us < ref_us ? one_us : ref_us))
  local differ
  differ=$(folder_diff ref/run one/run | tr '\n' ' ')
  [ -z "$differ" ] && cmp -s ref/run.out one/run.out \
    && ok "1 thread = 2 threads: every file but the log byte for byte, and the summary" \
    || bad "the results depend on the thread count: ${differ:-the summary} differ"

  # a finished run resumed rewrites the same bytes: the checkpoint round-trips
  cp ref/run/checkpoint ref.checkpoint.before
  t0=${EPOCHREALTIME/[.,]/}
  (cd ref && exec "$mcf" resume run --no-progress) >/dev/null 2>ref/resume.err \
    || { bad "resume of the finished run failed"; cat ref/resume.err; }
  kl_fin=$((${EPOCHREALTIME/[.,]/} - t0))
  cmp -s ref.checkpoint.before ref/run/checkpoint && ok "checkpoint round trip is byte-exact" \
    || bad "the checkpoint changed in a load/save round trip"
  differ=$(folder_diff ref/run one/run | tr '\n' ' ')
  [ -z "$differ" ] && ok "resuming a finished run rewrites the same files" \
    || bad "resume of the finished run changed $differ"
  kl_count "$kl_re_sweeps"
  [[ $kl_last == *"resumed from the checkpoint at sweep $total of $total" ]] \
    && ok "the finished run resumed from its last checkpoint" \
    || bad "resume of the finished run: the log says '$kl_last'"
}

# kl_finish REF TOTAL AT SEED: the last resume of folder $kl_run (checkpoint at sweep AT),
# not killed, then every file compared with REF's and the summary with REF.out's.
kl_finish() {
  local ref=$1 total=$2 at=$3 seed=$4
  local th=$((1 + RANDOM % 2)) lin=${kl_run%/run}
  (cd "$lin" && OMP_NUM_THREADS=$th exec "$mcf" resume run --no-progress) \
    >"$lin/last.out" 2>"$lin/last.err"
  local rc=$?
  [ "$rc" -eq 0 ] || { bad "$kl_run: the last resume failed (exit $rc)"; cat "$lin/last.err"; }
  kl_count "$kl_re_sweeps"
  [[ $kl_last == *"resumed from the checkpoint at sweep ${at:-x} of $total" ]] \
    || bad "$kl_run: the last resume: the log says '$kl_last', the checkpoint was at sweep ${at:-none}"
  local differ
  differ=$(folder_diff "$ref" "$kl_run" | tr '\n' ' ')
  if [ -z "$differ" ]; then
    ok "$kl_run, resumed on $th thread$([ "$th" -eq 1 ] || echo s) after its kills: every file but the log byte-identical to the uninterrupted run's ($(ls -A "$kl_run" | grep -vx log | tr '\n' ' '))"
  else
    bad "$kl_run (MCF_TEST_KILL_SEED=$seed): differ from the uninterrupted run's: $differ"
  fi
  cmp -s "$ref.out" "$lin/last.out" && ok "$kl_run: the summary on standard output is the same" \
    || bad "$kl_run: the summary differs from the uninterrupted run's"
}

# kill_lineage CONFIG REF TOTAL EVERY DURATION_US STARTUP_US FINISH_US
#   CONFIG       the configuration; the killed run is kill/run (kill2/run, ...)
#   REF          the reference run's folder (also named run: the same config.ini), and
#                REF.out its standard output
#   TOTAL        thermalization + sweeps;  EVERY: checkpoint_every
#   DURATION_US  the time of a run, STARTUP_US until its first sweep, FINISH_US of a resume
#                of the finished run (microseconds)
kill_lineage() {
  local cfg=$1 ref=$2 total=$3 every=$4 dur_us=$5 up_us=$6 fin_us=$7
  local lin_t0=${EPOCHREALTIME/[.,]/}
  local seed=${MCF_TEST_KILL_SEED:-$(((RANDOM << 15) | RANDOM))}
  RANDOM=$seed
  echo "kill instants: MCF_TEST_KILL_SEED=$seed draws them again"
  local nap
  exec {nap}<> <(:) # `read -t` on it: a short sleep without a process
  # the background jobs of a shell without job control ignore SIGINT; with it, they do not
  set -m
  local spk=$((dur_us * 1000 / total)) # microseconds per 1000 sweeps
  local n_lin=1 lin=kill
  kl_run=$lin/run
  rm -rf "$lin" && mkdir "$lin" || { bad "cannot create $lin"; return; }
  local at=  # the checkpoint's sweep (empty: no checkpoint yet)
  local k=0 between=0 endkills=0 pids=" " pending='' block=()
  local -A where=() sigs=()
  kl_pid=
  trap '[ -n "$kl_pid" ] && kill -KILL "$kl_pid" 2>/dev/null; exit 1' HUP INT TERM
  while :; do
    if [ "$between" -ge "$kills_needed" ] && [ "$endkills" -ge "$kills_end" ]; then
      break
    fi
    if [ "$k" -ge "$kills_max" ]; then
      bad "$k kills, $between between checkpoints (of $kills_needed) and $endkills at the end"
      break
    fi
    if [ "$between" -lt "$kills_needed" ] && [ "${at:-0}" = "$total" ]; then
      # the run is at its end (it went faster than measured): finish it, and the rest of
      # the kills go to a fresh run folder
      echo "note: $kl_run was at its end after $k kills, $between between checkpoints; the rest in a fresh run"
      kl_finish "$ref" "$total" "$at" "$seed"
      n_lin=$((n_lin + 1)) lin=kill$n_lin
      kl_run=$lin/run at='' pending=''
      rm -rf "$lin" && mkdir "$lin" || { bad "cannot create $lin"; break; }
    fi
    k=$((k + 1))
    # the signal: the next of a block of 3 KILL, 2 TERM, 1 INT in random order
    if [ "${#block[@]}" -eq 0 ]; then
      block=(KILL KILL KILL TERM TERM INT)
      local i j t
      for ((i = 5; i > 0; i--)); do
        j=$((RANDOM % (i + 1))); t=${block[i]}; block[i]=${block[j]}; block[j]=$t
      done
    fi
    local sig=${block[0]}
    block=("${block[@]:1}")
    local th=$((1 + RANDOM % 2)) r=$RANDOM aim
    if [ "$between" -ge "$kills_needed" ]; then
      aim=end; kl_uniform 0 "$fin_us" # from the last sweep's progress line on
    elif [ $((r % 6)) -eq 0 ]; then
      aim=start-up; kl_uniform 0 "$up_us" # from the start of the command
    else
      # from the first sweep on: a slice of the time left, so that the kills still to come
      # fit in (and a few more)
      local slice=$((spk * (total - ${at:-0}) / 1000 / (kills_needed + 4 - between)))
      aim=sweeps; kl_uniform $((slice / 20)) $((slice * 39 / 20))
    fi
    local delay=$kl_us cmd=resume
    [ -f "$kl_run/config.ini" ] || cmd=run # none yet, or killed before it wrote config.ini
    kl_count "$kl_re_start"; local starts0=$kl_n
    kl_count "$kl_re_sweeps"; local sweeps0=$kl_n
    local re_wait=$kl_re_sweeps wait0=$kl_n poll=0.004
    if [ "$aim" = end ]; then
      re_wait=" sweep $total/$total "; kl_count "$re_wait"; wait0=$kl_n poll=0.01
    fi
    local t0=${EPOCHREALTIME/[.,]/}
    (
      cd "$lin" || exit 1
      export OMP_NUM_THREADS=$th
      if [ "$cmd" = run ]; then
        exec "$mcf" run "../$cfg" --set run.output=run --no-progress
      else
        exec "$mcf" resume run --no-progress
      fi
    ) >"$lin/$k.out" 2>"$lin/$k.err" &
    local pid=$!
    kl_pid=$pid pids="$pids$pid "
    local t1=$t0 gone=0
    if [ "$aim" != start-up ]; then
      while :; do
        kl_count "$re_wait"
        [ "$kl_n" -gt "$wait0" ] && break
        kill -0 "$pid" 2>/dev/null || { gone=1; break; }
        t1=${EPOCHREALTIME/[.,]/}
        [ $((t1 - t0)) -lt 120000000 ] || break
        read -rt "$poll" -u "$nap"
      done
      t1=${EPOCHREALTIME/[.,]/}
    fi
    # the start-up of the commands here, for the kills aimed at it: the shortest time to
    # the first sweep seen (polling sees it late)
    [ "$aim" = sweeps ] && [ "$gone" -eq 0 ] && [ $((t1 - t0)) -lt "$up_us" ] && up_us=$((t1 - t0))
    local now=${EPOCHREALTIME/[.,]/} s
    if [ $((t1 + delay)) -gt "$now" ]; then
      kl_secs s $((t1 + delay - now)); sleep "$s"
    fi
    kill -s "$sig" "$pid" 2>/dev/null
    local t3=${EPOCHREALTIME/[.,]/}
    wait "$pid" 2>/dev/null; local rc=$?
    kl_pid=
    local fail0=$fail d1 d2
    kl_secs d1 $((t3 - t0)); kl_secs d2 $((t3 - t1))
    local what="kill $k: SIG$sig ${d1}s after the start"
    case $aim in
      sweeps) what="$what, ${d2}s after the sweeps began" ;;
      end) what="$what, ${d2}s after the last sweep" ;;
    esac
    what="$what (aim: $aim; $kl_run: $cmd on $th thread$([ "$th" -eq 1 ] || echo s) from ${at:+sweep }${at:-the first sweep})"
    local before=$at
    kl_checkpoint; at=$kl_at
    local want
    case $sig in TERM) want=143 ;; INT) want=130 ;; KILL) want=137 ;; esac
    [ "$rc" -eq "$want" ] || [ "$rc" -eq 0 ] \
      || bad "$what: exit status $rc, expected $want (or 0 if it had finished)"
    grep -qE '^mcf: error|Sanitizer|runtime error' "$lin/$k.err" \
      && bad "$what: $(grep -E '^mcf: error|Sanitizer|runtime error' "$lin/$k.err" | head -n 3)"
    [ "$gone" -eq 1 ] && [ "$rc" -ne 0 ] && bad "$what: the command ended by itself before its sweeps"
    # where the checkpoint is now
    local stopped
    stopped=$(grep -o 'stopped by signal [0-9]* at sweep [0-9]*' "$lin/$k.err" | awk '{ print $7 }' | sort -u)
    if [ "$at" = bad ]; then
      bad "$what: the checkpoint is not an mcf checkpoint"; at=$before
    elif [ -n "$before" ] && { [ -z "$at" ] || [ "$at" -lt "$before" ]; }; then
      bad "$what: the checkpoint went from sweep $before to '${at:-none}'"
    elif [ -n "$stopped" ]; then
      [ "$sig" != KILL ] && [ "$rc" -eq "$want" ] \
        || bad "$what: 'stopped by signal' with SIG$sig and exit status $rc"
      [ "$stopped" = "$at" ] || bad "$what: stopped at sweep '$stopped' but the checkpoint is at '$at'"
      grep -q "mcf resume" "$lin/$k.err" || bad "$what: the message does not say how to resume"
      [ -f "$kl_run/results.tsv" ] && bad "$what: a stopped run left a results.tsv"
    elif [ -n "$at" ] && [ "$at" != "$before" ] && [ $((at % every)) -ne 0 ] && [ "$at" -ne "$total" ]; then
      bad "$what: the checkpoint moved to sweep $at: not a multiple of checkpoint_every = $every, not the end"
    fi
    if [ -f "$kl_run/results.tsv" ] && [ "${at:-0}" != "$total" ]; then
      bad "$what: results.tsv with the checkpoint at sweep ${at:-none} of $total"
    fi
    # the time a sweep takes: at most this command's time over the sweeps it is known to
    # have done (to where a signal stopped it, or to its last checkpoint); the shortest
    # such bound is kept (a lower estimate only puts the kills earlier in the run)
    if [ "$aim" = sweeps ] && [ "${at:-0}" -gt "${before:-0}" ]; then
      local obs=$(((t3 - t1) * 1000 / (at - ${before:-0})))
      [ "$obs" -lt "$spk" ] && spk=$obs
    fi
    # the files a reader sees are whole: the reference's; temporaries only of killed commands
    local f tmps=
    for f in $(ls -A "$kl_run"); do
      case $f in
        log | checkpoint | .lock | .series-partial) ;; # .series-partial: the series so far
        *.tmp.*)
          tmps="$tmps $f"
          local owner=${f##*.tmp.}
          [[ $pids == *" $owner "* ]] && ! kill -0 "$owner" 2>/dev/null \
            || bad "$what: temporary $f: not of a command killed here"
          ;;
        .plot-*) tmps="$tmps $f" ;;
        .previous*) bad "$what: $f left behind (no --force here)" ;;
        *) same_bytes "$kl_run/$f" "$ref/$f" || bad "$what: $f differs from the reference's" ;;
      esac
    done
    # what the kill before left: gone once this command has taken the folder
    kl_count "$kl_re_start"; local started=$((kl_n > starts0))
    if [ "$started" -eq 1 ]; then
      for f in $pending; do
        [ -e "$kl_run/$f" ] && bad "$what: $f, left by an earlier kill, is still there"
      done
      pending=
    fi
    for f in $tmps; do
      case $f in .plot-*.svg.tmp|.plot-*.png.tmp) ;; *) pending="$pending $f" ;; esac # those names recur
    done
    # did this command begin from that checkpoint?
    kl_count "$kl_re_sweeps"; local began=$((kl_n > sweeps0))
    if [ "$began" -eq 1 ]; then
      case $kl_last in
        *"resumed from the checkpoint at sweep ${before:-x} of $total") ;;
        *": starting "* | *"no checkpoint in "*) [ -z "$before" ] \
          || bad "$what: began from the first sweep with a checkpoint at sweep $before" ;;
        *) bad "$what: the log says '${kl_last#* * }' with the checkpoint at sweep ${before:-none}" ;;
      esac
    fi
    # where it landed
    local landed
    if [ "$rc" -eq 0 ]; then landed="after finishing"
    elif [[ "$tmps " == *" checkpoint.tmp.$pid "* ]]; then landed="while writing a checkpoint"
    elif [ "$aim" = end ] && [ "$gone" -eq 0 ] && [ "${at:-0}" -lt "$total" ]; then
      landed="while writing a checkpoint" # after the last sweep's line, before the rename
    elif [ "$started" -eq 0 ] || [ "$began" -eq 0 ]; then landed="start-up"
    elif [ "$sig" != KILL ] && [ -z "$stopped" ] && [ "${at:-0}" -lt "$total" ]; then
      landed="start-up" # before the signal handlers were set
    elif [ "${at:-0}" -eq "$total" ]; then landed="finishing"
    elif [ -z "$before" ] && { [ -z "$at" ] || [ "${stopped:-$((every + 1))}" -le "$every" ]; }; then
      landed="before the first checkpoint"
    else landed="between checkpoints"
    fi
    case $landed in
      "between checkpoints" | "while writing a checkpoint")
        [ "$aim" = end ] || between=$((between + 1)) ;;
    esac
    [ "$aim" = end ] && endkills=$((endkills + 1))
    where[$landed]=$((${where[$landed]:-0} + 1))
    sigs[$sig]=$((${sigs[$sig]:-0} + 1))
    local left=
    [ -f "$kl_run/results.tsv" ] && left=", results.tsv"
    [ -n "$tmps" ] && left="$left, left${tmps}"
    [ "$fail" -eq "$fail0" ] && ok "$what: exit $rc, $landed; checkpoint at ${at:-none}$left"
  done
  kl_finish "$ref" "$total" "$at" "$seed"
  set +m
  trap - HUP INT TERM
  exec {nap}<&-
  local summary='' key took
  for key in "between checkpoints" "while writing a checkpoint" "before the first checkpoint" \
             "start-up" "finishing" "after finishing"; do
    summary="$summary, ${where[$key]:-0} $key"
  done
  kl_secs took $((${EPOCHREALTIME/[.,]/} - lin_t0))
  echo "kills: $k (SIGKILL ${sigs[KILL]:-0}, SIGTERM ${sigs[TERM]:-0}, SIGINT ${sigs[INT]:-0})$summary; $n_lin run folder$([ "$n_lin" -eq 1 ] || echo s); ${took}s; seed $seed"
}
