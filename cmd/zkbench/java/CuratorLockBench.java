// Curator 5.4's locks measured the way zkbench measures recipes/mutex and
// recipes/rwlock: W workers, each with a CuratorFramework (a session) of its
// own, loop acquire -> check -> release on PATH, WARMUP unmeasured cycles
// each, then ITERS measured ones, for at most BUDGET_MS milliseconds (0: no
// cap).
//
//   mutex   InterProcessMutex; every worker is exclusive
//   rwlock  InterProcessReadWriteLock; the first WRITERS workers take the
//           write lock, the others the read lock
//   multilock  InterProcessMultiLock of the InterProcessMutexes at PATH/p0,
//           PATH/p1, PATH/p2, in that order; every worker is exclusive
//
// Usage: CuratorLockBench mutex|rwlock|multilock CONNECT PATH WORKERS WRITERS ITERS WARMUP BUDGET_MS SESSION_MS
//
// Prints one line, in zkbench's format:
//   recipe=curator-mutex workers=W iters=M ops=N secs=S ops_per_s=X
//   handoff_p50_ms=A handoff_p99_ms=B violations=V
// (curator-rwlock adds readers=R writers=W after workers). handoff is from
// the start of a release (just before release()) to the moment the next
// holder's acquire() returns, for holders that were already waiting when
// that release began (a reader only waits for a writer's release), as
// zkbench's driver measures it; violations counts entries that found
// another holder inside they may not share with.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorLockBench {
    static final AtomicLong exclusiveInside = new AtomicLong();
    static final AtomicLong sharedInside = new AtomicLong();
    static final AtomicLong violations = new AtomicLong();
    // The start (System.nanoTime) of the latest exclusive and shared
    // releases; Long.MIN_VALUE: none yet.
    static final AtomicLong lastExclusive = new AtomicLong(Long.MIN_VALUE);
    static final AtomicLong lastShared = new AtomicLong(Long.MIN_VALUE);
    static final AtomicBoolean stop = new AtomicBoolean();

    public static void main(String[] args) throws Exception {
        if (args.length != 9 || !(args[0].equals("mutex") || args[0].equals("rwlock") || args[0].equals("multilock"))) {
            System.err.println("usage: CuratorLockBench mutex|rwlock|multilock CONNECT PATH WORKERS WRITERS ITERS WARMUP BUDGET_MS SESSION_MS");
            System.exit(2);
        }
        String mode = args[0], connect = args[1], path = args[2];
        int workers = Integer.parseInt(args[3]);
        int writers = mode.equals("rwlock") ? Integer.parseInt(args[4]) : workers;
        int iters = Integer.parseInt(args[5]);
        int warmup = Integer.parseInt(args[6]);
        long budgetMs = Long.parseLong(args[7]);
        int sessionMs = Integer.parseInt(args[8]);

        CuratorFramework[] clients = new CuratorFramework[workers];
        InterProcessLock[] locks = new InterProcessLock[workers];
        for (int i = 0; i < workers; i++) {
            clients[i] = CuratorFrameworkFactory.newClient(connect, sessionMs, 5000, new ExponentialBackoffRetry(100, 5));
            clients[i].start();
        }
        try {
            for (int i = 0; i < workers; i++) {
                if (!clients[i].blockUntilConnected(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no connection to " + connect);
                }
                if (mode.equals("mutex")) {
                    locks[i] = new InterProcessMutex(clients[i], path);
                } else if (mode.equals("multilock")) {
                    locks[i] = new InterProcessMultiLock(clients[i], Arrays.asList(path + "/p0", path + "/p1", path + "/p2"));
                } else {
                    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(clients[i], path);
                    locks[i] = i < writers ? rw.writeLock() : rw.readLock();
                }
            }
            bench(mode, locks, writers, iters, warmup, budgetMs);
        } finally {
            for (CuratorFramework c : clients) {
                c.close();
            }
        }
    }

    static void bench(String mode, InterProcessLock[] locks, int writers, int iters, int warmup, long budgetMs) throws Exception {
        int workers = locks.length;
        // Warm-up: every worker, concurrently, unmeasured.
        phase(locks, writers, warmup, false, 0, new ArrayList<>(), new AtomicInteger());
        long violationsBefore = violations.get();
        List<Long> handoffs = new ArrayList<>();
        AtomicInteger ops = new AtomicInteger();
        long start = System.nanoTime();
        phase(locks, writers, iters, workers > 1, budgetMs, handoffs, ops);
        long elapsed = System.nanoTime() - start;
        long[] lat = new long[handoffs.size()];
        for (int i = 0; i < lat.length; i++) {
            lat[i] = handoffs.get(i);
        }
        Arrays.sort(lat);
        double secs = elapsed / 1e9;
        String rw = mode.equals("rwlock") ? String.format(Locale.ROOT, " readers=%d writers=%d", workers - writers, writers) : "";
        System.out.println(String.format(Locale.ROOT,
                "recipe=curator-%s workers=%d%s iters=%d ops=%d secs=%.2f ops_per_s=%.1f handoff_p50_ms=%.2f handoff_p99_ms=%.2f violations=%d",
                mode, workers, rw, iters, ops.get(), secs, secs > 0 ? ops.get() / secs : 0.0,
                percentile(lat, 50) / 1e6, percentile(lat, 99) / 1e6, violations.get() - violationsBefore));
    }

    // phase runs iters cycles on every worker, on a thread each, for at most
    // budgetMs (0: no cap): workers then stop after their current cycle and
    // only completed cycles count.
    static void phase(InterProcessLock[] locks, int writers, int iters, boolean measure, long budgetMs,
            List<Long> handoffs, AtomicInteger ops) throws Exception {
        stop.set(false);
        lastExclusive.set(Long.MIN_VALUE);
        lastShared.set(Long.MIN_VALUE);
        int workers = locks.length;
        CountDownLatch done = new CountDownLatch(workers);
        CyclicBarrier go = new CyclicBarrier(workers);
        Throwable[] failed = new Throwable[1];
        for (int i = 0; i < workers; i++) {
            final InterProcessLock lock = locks[i];
            final boolean shared = i >= writers;
            Thread t = new Thread(() -> {
                List<Long> mine = new ArrayList<>();
                try {
                    go.await();
                    for (int n = 0; n < iters && !stop.get(); n++) {
                        long waitStart = System.nanoTime();
                        lock.acquire();
                        long acquired = System.nanoTime();
                        long t0 = shared ? lastExclusive.get() : Math.max(lastExclusive.get(), lastShared.get());
                        if (measure && t0 != Long.MIN_VALUE && waitStart - t0 < 0) {
                            mine.add(acquired - t0);
                        }
                        enter(shared);
                        Thread.yield(); // stay inside a little, so an overlap has a chance to show
                        leave(shared);
                        (shared ? lastShared : lastExclusive).set(System.nanoTime());
                        lock.release();
                        ops.incrementAndGet();
                    }
                } catch (Throwable e) {
                    synchronized (failed) {
                        if (failed[0] == null) {
                            failed[0] = e;
                        }
                    }
                    stop.set(true);
                } finally {
                    synchronized (handoffs) {
                        handoffs.addAll(mine);
                    }
                    done.countDown();
                }
            });
            t.setDaemon(true);
            t.start();
        }
        if (budgetMs > 0) {
            if (!done.await(budgetMs, TimeUnit.MILLISECONDS)) {
                stop.set(true);
            }
        }
        done.await();
        if (failed[0] != null) {
            throw new RuntimeException("a worker failed", failed[0]);
        }
    }

    static void enter(boolean shared) {
        if (shared) {
            sharedInside.incrementAndGet();
            if (exclusiveInside.get() != 0) {
                violations.incrementAndGet();
            }
            return;
        }
        if (exclusiveInside.incrementAndGet() != 1 || sharedInside.get() != 0) {
            violations.incrementAndGet();
        }
    }

    static void leave(boolean shared) {
        (shared ? sharedInside : exclusiveInside).decrementAndGet();
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
