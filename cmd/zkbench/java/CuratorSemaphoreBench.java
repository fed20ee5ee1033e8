// Curator 5.4's InterProcessSemaphoreV2 measured the way zkbench measures
// recipes/semaphore: W workers, each with a CuratorFramework (a session) of
// its own and a semaphore of MAX leases on PATH, loop acquire -> count
// themselves in and out -> returnLease at once. WARMUP unmeasured cycles per
// worker first, then ITERS measured ones, for at most BUDGET_MS milliseconds
// (0: no cap; only completed cycles count then).
//
// Usage: CuratorSemaphoreBench CONNECT PATH WORKERS MAX ITERS WARMUP BUDGET_MS
//
// Prints one line, in zkbench's format:
//   recipe=curator-semaphore workers=W max=L iters=M ops=N secs=S ops_per_s=X
//   acquire_p50_ms=A acquire_p99_ms=B max_inside=P violations=V
// max_inside is the peak number of workers holding a lease at once, by this
// process's own counter; violations the entries that found more than MAX
// holders inside.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorSemaphoreBench {
    static final AtomicInteger inside = new AtomicInteger();
    static final AtomicInteger peak = new AtomicInteger();
    static final AtomicLong violations = new AtomicLong();
    static final AtomicReference<Throwable> failure = new AtomicReference<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: CuratorSemaphoreBench CONNECT PATH WORKERS MAX ITERS WARMUP BUDGET_MS");
            System.exit(2);
        }
        String connect = args[0], path = args[1];
        int workers = Integer.parseInt(args[2]);
        int max = Integer.parseInt(args[3]);
        int iters = Integer.parseInt(args[4]);
        int warmup = Integer.parseInt(args[5]);
        long budgetMs = Long.parseLong(args[6]);

        CuratorFramework[] clients = new CuratorFramework[workers];
        InterProcessSemaphoreV2[] sems = new InterProcessSemaphoreV2[workers];
        for (int i = 0; i < workers; i++) {
            clients[i] = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
            clients[i].start();
        }
        for (int i = 0; i < workers; i++) {
            if (!clients[i].blockUntilConnected(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + connect);
            }
            sems[i] = new InterProcessSemaphoreV2(clients[i], path, max);
        }
        try {
            if (warmup > 0) {
                phase(sems, max, warmup, 0);
                check();
            }
            inside.set(0);
            peak.set(0);
            violations.set(0);
            long start = System.nanoTime();
            long[][] lat = phase(sems, max, iters, budgetMs);
            long elapsed = System.nanoTime() - start;
            check();
            int ops = 0;
            for (long[] l : lat) {
                ops += l.length;
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
                    "recipe=curator-semaphore workers=%d max=%d iters=%d ops=%d secs=%.2f ops_per_s=%.1f acquire_p50_ms=%.2f acquire_p99_ms=%.2f max_inside=%d violations=%d",
                    workers, max, iters, ops, secs, secs > 0 ? ops / secs : 0.0,
                    percentile(all, 50) / 1e6, percentile(all, 99) / 1e6, peak.get(), violations.get()));
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

    // phase runs iters cycles on every worker at once (at most budgetMs when
    // positive) and returns each worker's acquire latencies in nanoseconds,
    // one per completed cycle.
    static long[][] phase(InterProcessSemaphoreV2[] sems, int max, int iters, long budgetMs) throws InterruptedException {
        long deadline = budgetMs > 0 ? System.nanoTime() + budgetMs * 1_000_000L : Long.MAX_VALUE;
        long[][] lat = new long[sems.length][];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < sems.length; i++) {
            final int w = i;
            Thread t = new Thread(() -> {
                long[] mine = new long[iters];
                int done = 0;
                try {
                    for (; done < iters && failure.get() == null; done++) {
                        long t0 = System.nanoTime();
                        long left = deadline - t0;
                        if (left <= 0) {
                            break;
                        }
                        Lease lease = deadline == Long.MAX_VALUE ? sems[w].acquire() : sems[w].acquire(left, TimeUnit.NANOSECONDS);
                        if (lease == null) {
                            break; // the budget ran out while waiting
                        }
                        mine[done] = System.nanoTime() - t0;
                        int n = inside.incrementAndGet();
                        peak.accumulateAndGet(n, Math::max);
                        if (n > max) {
                            violations.incrementAndGet();
                        }
                        Thread.yield(); // stay inside a little, so an overlap has a chance to show
                        inside.decrementAndGet();
                        sems[w].returnLease(lease);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
                lat[w] = Arrays.copyOf(mine, done);
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
