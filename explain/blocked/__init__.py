"""Where the time went: blocked-time analysis after Ousterhout et al., NSDI 2015.

* ``components`` — the parts of a task's time it was blocked on (GC, shuffle read wait, shuffle
  write, input read, scheduler delay, (de)serialization) and how to remove them.
* ``stragglers`` — stragglers per stage and their causes by the paper's counterfactual rule,
  plus output skew and first task on an executor.
* ``slots`` — what the real schedule says: executors' slots, slot releases and the delays
  tasks waited with a slot free (locality wait).
* ``pool`` — an app's slots during a replay, chosen as Spark's delay scheduling does.
* ``replay`` — replays all of an app's jobs together with changed task durations.
* ``whatif`` — job and app completion times without a blocked-time component or stragglers.
* ``features`` — straggler flags and time shares as task features for explanations.
"""
