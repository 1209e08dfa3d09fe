# SPDX-License-Identifier: BSD-3-Clause
"""How the Python benchmarks run their contenders: each once unmeasured,
then `rounds` rounds in which every contender runs, the order rotating so
that none always goes first."""
import statistics
import time


def rotate(contenders, rounds, measure):
    """contenders: name -> function. {name: [measure(function), one a
    round]} after the warm-up."""
    names = list(contenders)
    for n in names:
        contenders[n]()
    samples = {n: [] for n in names}
    for k in range(rounds):
        for n in names[k % len(names):] + names[:k % len(names)]:
            samples[n].append(measure(contenders[n]))
    return samples


def rounds_of(contenders, rounds, clock=time.perf_counter):
    """{name: median seconds per round}; clock: wall time, or
    time.process_time for this process's CPU time (user + system), which
    other load on a shared machine disturbs far less."""
    def timed(f):
        t = clock()
        f()
        return clock() - t
    return {n: statistics.median(v) for n, v in rotate(contenders, rounds, timed).items()}
