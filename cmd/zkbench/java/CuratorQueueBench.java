// Curator 5.4's DistributedQueue measured the way zkbench measures
// recipes/queue: W producers and W consumers, each a CuratorFramework (a
// session) of its own, on one queue at PATH (lockPath LOCK_PATH, "-" for
// none), putInBackground(false) and QueueBuilder's default direct executor.
// The consumers start first; each producer puts WARMUP items, all consumed
// unmeasured, then ITERS more; the measurement runs from the first of those
// puts to the last item's consumption (at most BUDGET_MS milliseconds, 0:
// no cap). Each item carries its producer, its number and its put time
// (System.nanoTime: one JVM), as the Go side's do.
//
// Usage: CuratorQueueBench CONNECT PATH LOCK_PATH WORKERS ITERS WARMUP BUDGET_MS SESSION_MS
//
// Prints one line:
//   recipe=curator-queue workers=W iters=M items=N secs=S items_per_s=X
//   latency_p50_ms=A latency_p99_ms=B put_p50_ms=P dups=D lost=L
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorQueueBench {
    static final QueueSerializer<byte[]> BYTES = new QueueSerializer<byte[]>() {
        @Override
        public byte[] serialize(byte[] item) {
            return item;
        }

        @Override
        public byte[] deserialize(byte[] bytes) {
            return bytes;
        }
    };

    static final ConcurrentHashMap<Long, AtomicInteger> seen = new ConcurrentHashMap<>();
    static final Object lock = new Object();
    static long[] lat = new long[1 << 12];
    static int nlat, got, want;
    static boolean measure;
    static final AtomicReference<Throwable> failure = new AtomicReference<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: CuratorQueueBench CONNECT PATH LOCK_PATH WORKERS ITERS WARMUP BUDGET_MS SESSION_MS");
            System.exit(2);
        }
        String connect = args[0], path = args[1], lockPath = args[2];
        int workers = Integer.parseInt(args[3]), iters = Integer.parseInt(args[4]), warmup = Integer.parseInt(args[5]);
        long budgetMs = Long.parseLong(args[6]);
        int sessionMs = Integer.parseInt(args[7]);

        QueueConsumer<byte[]> consumer = new QueueConsumer<byte[]>() {
            @Override
            public void consumeMessage(byte[] item) {
                long now = System.nanoTime();
                ByteBuffer b = ByteBuffer.wrap(item);
                long key = ((long) b.getInt() << 32) | (b.getInt() & 0xffffffffL);
                long at = b.getLong();
                seen.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                synchronized (lock) {
                    if (measure) {
                        if (nlat == lat.length) {
                            lat = Arrays.copyOf(lat, 2 * nlat);
                        }
                        lat[nlat++] = now - at;
                    }
                    got++;
                    lock.notifyAll();
                }
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        };
        List<CuratorFramework> clients = new ArrayList<>();
        List<DistributedQueue<byte[]>> consumers = new ArrayList<>(), producers = new ArrayList<>();
        for (int i = 0; i < 2 * workers; i++) {
            CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, sessionMs, 5000, new ExponentialBackoffRetry(100, 5));
            cf.start();
            clients.add(cf);
        }
        for (int i = 0; i < 2 * workers; i++) {
            CuratorFramework cf = clients.get(i);
            if (!cf.blockUntilConnected(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + connect);
            }
            boolean isConsumer = i < workers;
            QueueBuilder<byte[]> b = QueueBuilder.builder(cf, isConsumer ? consumer : null, BYTES, path).putInBackground(false);
            if (!lockPath.equals("-")) {
                b = b.lockPath(lockPath);
            }
            DistributedQueue<byte[]> q = b.buildQueue();
            q.start();
            (isConsumer ? consumers : producers).add(q);
        }
        try {
            if (warmup > 0) {
                phase(producers, 0, warmup, false, Long.MAX_VALUE);
            }
            long start = System.nanoTime();
            long deadline = budgetMs > 0 ? start + budgetMs * 1_000_000L : Long.MAX_VALUE;
            long[] puts = phase(producers, warmup, iters, true, deadline);
            long elapsed = Math.min(System.nanoTime(), deadline) - start;
            Throwable t = failure.get();
            if (t != null) {
                throw new RuntimeException(t);
            }
            int items, n;
            long[] all;
            synchronized (lock) {
                items = got - workers * warmup;
                all = Arrays.copyOf(lat, nlat);
            }
            Arrays.sort(all);
            Arrays.sort(puts);
            int dups = 0, lost = 0;
            for (int p = 0; p < workers; p++) {
                for (int i = 0; i < warmup + iters; i++) {
                    AtomicInteger c = seen.get(((long) p << 32) | i);
                    if (c == null) {
                        lost++;
                    } else if (c.get() > 1) {
                        dups += c.get() - 1;
                    }
                }
            }
            double secs = elapsed / 1e9;
            System.out.println(String.format(Locale.ROOT,
                    "recipe=curator-queue workers=%d iters=%d items=%d secs=%.2f items_per_s=%.1f latency_p50_ms=%.2f latency_p99_ms=%.2f put_p50_ms=%.2f dups=%d lost=%d",
                    workers, iters, items, secs, secs > 0 ? items / secs : 0.0, percentile(all, 50) / 1e6, percentile(all, 99) / 1e6,
                    percentile(puts, 50) / 1e6, dups, lost));
        } finally {
            for (DistributedQueue<byte[]> q : consumers) {
                q.close();
            }
            for (DistributedQueue<byte[]> q : producers) {
                q.close();
            }
            for (CuratorFramework c : clients) {
                c.close();
            }
        }
        System.exit(0);
    }

    // phase has every producer put n items from first at once, then waits
    // until all are consumed (or the deadline), and returns the measured
    // puts' times in nanoseconds.
    static long[] phase(List<DistributedQueue<byte[]>> producers, int first, int n, boolean measured, long deadline) throws Exception {
        synchronized (lock) {
            want = got + producers.size() * n;
            measure = measured;
        }
        long[][] puts = new long[producers.size()][];
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers.size(); p++) {
            final int who = p;
            Thread t = new Thread(() -> {
                long[] mine = new long[n];
                try {
                    for (int i = 0; i < n; i++) {
                        long t0 = System.nanoTime();
                        ByteBuffer b = ByteBuffer.allocate(16);
                        b.putInt(who).putInt(first + i).putLong(t0);
                        producers.get(who).put(b.array());
                        mine[i] = System.nanoTime() - t0;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
                puts[who] = mine;
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        synchronized (lock) {
            while (got < want && failure.get() == null) {
                long left = deadline == Long.MAX_VALUE ? 60_000 : (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                lock.wait(left);
            }
        }
        int total = 0;
        for (long[] l : puts) {
            total += l == null ? 0 : l.length;
        }
        long[] all = new long[total];
        int k = 0;
        for (long[] l : puts) {
            if (l != null) {
                System.arraycopy(l, 0, all, k, l.length);
                k += l.length;
            }
        }
        return all;
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
