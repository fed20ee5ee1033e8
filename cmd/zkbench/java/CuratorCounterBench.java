// Curator 5.4's DistributedAtomicLong measured the way zkbench measures
// recipes/counter: W workers, each with a CuratorFramework (a session) of
// its own and a DistributedAtomicLong on PATH, increment at once: WARMUP
// unmeasured increments per worker first, then ITERS measured ones, for at
// most BUDGET_MS milliseconds (0: no cap; only increments that returned
// within it count then, and the measurement's time is the budget). An increment that did not succeed is made again (counted in
// failures). The optimistic tries use ExponentialBackoffRetry(BASE_MS,
// RETRIES) (RetryNTimes(RETRIES, 0) when BASE_MS is 0); with LOCK_PATH other than "-", they are promoted to an
// InterProcessMutex there with the same policy.
//
// Each worker pauses a random time below THINK_MS (0: none) before each
// increment.
//
// Usage: CuratorCounterBench CONNECT PATH LOCK_PATH WORKERS ITERS WARMUP BUDGET_MS BASE_MS RETRIES SESSION_MS THINK_MS
//
// Prints one line:
//   recipe=curator-counter workers=W iters=M ops=N secs=S incs_per_s=X
//   inc_p50_ms=A inc_p99_ms=B tries=T failures=F promoted=P worker_min=L
//   worker_max=H done=D
// tries counts the conditional writes of the measured phase (optimistic and
// promoted), promoted the increments that took the lock, done every
// increment that succeeded, warm-up included.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public class CuratorCounterBench {
    static final AtomicLong tries = new AtomicLong(), failures = new AtomicLong(), promoted = new AtomicLong(), done = new AtomicLong();
    static final AtomicReference<Throwable> failure = new AtomicReference<>();
    static int think;

    public static void main(String[] args) throws Exception {
        if (args.length != 11) {
            System.err.println("usage: CuratorCounterBench CONNECT PATH LOCK_PATH WORKERS ITERS WARMUP BUDGET_MS BASE_MS RETRIES SESSION_MS THINK_MS");
            System.exit(2);
        }
        String connect = args[0], path = args[1], lockPath = args[2];
        int workers = Integer.parseInt(args[3]);
        int iters = Integer.parseInt(args[4]);
        int warmup = Integer.parseInt(args[5]);
        long budgetMs = Long.parseLong(args[6]);
        int baseMs = Integer.parseInt(args[7]);
        int retries = Integer.parseInt(args[8]);
        int sessionMs = Integer.parseInt(args[9]);
        think = Integer.parseInt(args[10]);

        RetryPolicy policy = baseMs == 0 ? new RetryNTimes(retries, 0) : new ExponentialBackoffRetry(baseMs, retries);
        CuratorFramework[] clients = new CuratorFramework[workers];
        DistributedAtomicLong[] counters = new DistributedAtomicLong[workers];
        for (int i = 0; i < workers; i++) {
            clients[i] = CuratorFrameworkFactory.newClient(connect, sessionMs, 5000, new ExponentialBackoffRetry(100, 5));
            clients[i].start();
        }
        for (int i = 0; i < workers; i++) {
            if (!clients[i].blockUntilConnected(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + connect);
            }
            counters[i] = lockPath.equals("-") ? new DistributedAtomicLong(clients[i], path, policy)
                    : new DistributedAtomicLong(clients[i], path, policy,
                            PromotedToLock.builder().lockPath(lockPath).retryPolicy(policy).build());
        }
        try {
            if (warmup > 0) {
                phase(counters, warmup, Long.MAX_VALUE);
                check();
            }
            tries.set(0);
            failures.set(0);
            promoted.set(0);
            long start = System.nanoTime();
            long deadline = budgetMs > 0 ? start + budgetMs * 1_000_000L : Long.MAX_VALUE;
            long[][] lat = phase(counters, iters, deadline);
            long elapsed = Math.min(System.nanoTime(), deadline) - start;
            check();
            int ops = 0, minWorker = Integer.MAX_VALUE, maxWorker = 0;
            for (long[] l : lat) {
                ops += l.length;
                minWorker = Math.min(minWorker, l.length);
                maxWorker = Math.max(maxWorker, l.length);
            }
            long[] all = new long[ops];
            int k = 0;
            for (long[] l : lat) {
                System.arraycopy(l, 0, all, k, l.length);
                k += l.length;
            }
            Arrays.sort(all);
            double secs = elapsed / 1e9;
            System.out.println(String.format(Locale.ROOT,
                    "recipe=curator-counter workers=%d iters=%d ops=%d secs=%.2f incs_per_s=%.1f inc_p50_ms=%.2f inc_p99_ms=%.2f tries=%d failures=%d promoted=%d worker_min=%d worker_max=%d done=%d",
                    workers, iters, ops, secs, secs > 0 ? ops / secs : 0.0, percentile(all, 50) / 1e6, percentile(all, 99) / 1e6,
                    tries.get(), failures.get(), promoted.get(), minWorker, maxWorker, done.get()));
        } finally {
            for (CuratorFramework c : clients) {
                c.close();
            }
        }
    }

    static void check() throws Exception {
        Throwable t = failure.get();
        if (t instanceof Exception) {
            throw (Exception) t;
        }
        if (t != null) {
            throw new RuntimeException(t);
        }
    }

    // phase has every worker increment iters times at once (starting none
    // after deadline) and returns each worker's latencies, in nanoseconds,
    // of the increments that succeeded by the deadline.
    static long[][] phase(DistributedAtomicLong[] counters, int iters, long deadline) throws InterruptedException {
        long[][] lat = new long[counters.length][];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < counters.length; i++) {
            final int w = i;
            Thread t = new Thread(() -> {
                long[] mine = new long[Math.min(iters, 1 << 12)];
                int n = 0;
                try {
                    while (n < iters && failure.get() == null && System.nanoTime() < deadline) {
                        if (think > 0) {
                            Thread.sleep(ThreadLocalRandom.current().nextInt(think));
                            if (System.nanoTime() >= deadline) {
                                break;
                            }
                        }
                        long t0 = System.nanoTime();
                        AtomicValue<Long> v = counters[w].increment();
                        long t1 = System.nanoTime();
                        if (t1 > deadline) {
                            if (v.succeeded()) {
                                done.incrementAndGet(); // on the server, but after the measurement
                            }
                            break;
                        }
                        tries.addAndGet(v.getStats().getOptimisticTries() + v.getStats().getPromotedLockTries());
                        if (v.getStats().getPromotedLockTries() > 0) {
                            promoted.incrementAndGet();
                        }
                        if (!v.succeeded()) {
                            failures.incrementAndGet();
                            continue;
                        }
                        done.incrementAndGet();
                        if (n == mine.length) {
                            mine = Arrays.copyOf(mine, 2 * n);
                        }
                        mine[n++] = t1 - t0;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
                lat[w] = Arrays.copyOf(mine, n);
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        return lat;
    }

    // percentile is the nearest-rank p-th percentile of sorted, 0 when empty
    // (zkbench's definition).
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) (sorted.length * p / 100 + 0.999999999) - 1;
        return sorted[Math.min(Math.max(rank, 0), sorted.length - 1)];
    }
}
