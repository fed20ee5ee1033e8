// Curator 5.4's CuratorCache measured the way zkbench measures
// recipes/cache, on a tree zkbench made: under ROOT, parents p0, p1, ...
// with up to FANOUT children c0, c1, ... each, LEAVES leaves in all.
// CuratorCache on a ZooKeeper 3.6+ server sets one persistent recursive
// watch on ROOT (addWatch) and reads every node once.
//
//   init     WARMUP unmeasured loads, then ITERS measured ones, each on a
//            new CuratorFramework (a session) whose connection is up before
//            the clock starts: from CuratorCache.start() to the
//            initialized listener; cpu_ms is the median of the JVM's CPU
//            time over the measured loads (every thread: JIT and GC too).
//   latency  CACHES caches of ROOT, each on a CuratorFramework of its own;
//            a writer (the raw ZooKeeper handle of one more session) sets
//            the leaves' data one change at a time, round robin; from the
//            setData call to each cache's forChanges listener for that
//            version. WARMUP unmeasured changes, then ITERS measured ones.
//            server_watches is the server's count of data watches (wchs,
//            which leaves child watches out) with every cache loaded, -1
//            when it would not say.
//   heap     one cache: used heap (Runtime total - free, after System.gc()
//            until it settles) with the cache initialized minus before its
//            start, the session already up.
//
// NODATA true caches stats only (CuratorCacheStorage.dataNotCached()).
//
// Usage: CuratorCacheBench init|latency|heap CONNECT ROOT LEAVES FANOUT DATA_BYTES NODATA CACHES ITERS WARMUP SESSION_MS
//
// Prints one line, in zkbench's format (the fields of recipes/cache's line
// for the mode; watch_table_per_node_bytes=-1: not measured).
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.cache.CuratorCacheStorage;
import org.apache.curator.retry.ExponentialBackoffRetry;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.FourLetterWordMain;

public class CuratorCacheBench {
    static String connect, root;
    static int leaves, fanout, dataBytes, sessionMs;
    static boolean noData;

    public static void main(String[] args) throws Exception {
        if (args.length != 11) {
            System.err.println("usage: CuratorCacheBench init|latency|heap CONNECT ROOT LEAVES FANOUT DATA_BYTES NODATA CACHES ITERS WARMUP SESSION_MS");
            System.exit(2);
        }
        String mode = args[0];
        connect = args[1];
        root = args[2];
        leaves = Integer.parseInt(args[3]);
        fanout = Integer.parseInt(args[4]);
        dataBytes = Integer.parseInt(args[5]);
        noData = Boolean.parseBoolean(args[6]);
        int caches = Integer.parseInt(args[7]);
        int iters = Integer.parseInt(args[8]);
        int warmup = Integer.parseInt(args[9]);
        sessionMs = Integer.parseInt(args[10]);
        String head = String.format(Locale.ROOT, "recipe=curator-cache measure=%s nodes=%d data_bytes=%d cache_data=%b",
                mode, nodes(), dataBytes, !noData);
        switch (mode) {
            case "init":
                System.out.println(head + init(iters, warmup));
                break;
            case "latency":
                System.out.println(head + latency(caches, iters, warmup));
                break;
            case "heap":
                System.out.println(head + heap());
                break;
            default:
                System.err.println("unknown mode " + mode);
                System.exit(2);
        }
    }

    static int parents() {
        return (leaves + fanout - 1) / fanout;
    }

    static int nodes() {
        return 1 + parents() + leaves;
    }

    static String leaf(int i) {
        return root + "/p" + (i / fanout) + "/c" + (i % fanout);
    }

    static CuratorFramework newClient() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connect, sessionMs, 5000, new ExponentialBackoffRetry(100, 5));
        c.start();
        if (!c.blockUntilConnected(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        return c;
    }

    static CuratorCache newCache(CuratorFramework c) {
        return CuratorCache.builder(c, root)
                .withStorage(noData ? CuratorCacheStorage.dataNotCached() : CuratorCacheStorage.standard())
                .build();
    }

    // load starts cache, waits for its initialized listener and checks it
    // holds the whole tree.
    static void load(CuratorCache cache, CountDownLatch initialized) throws InterruptedException {
        cache.start();
        if (!initialized.await(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("cache not initialized within 5 minutes");
        }
        if (cache.size() != nodes()) {
            throw new IllegalStateException("initialized cache holds " + cache.size() + " nodes, want " + nodes());
        }
    }

    // processCpu is the CPU time the JVM has used, every thread (JIT and GC
    // included), in nanoseconds.
    static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static String init(int iters, int warmup) throws Exception {
        long[] times = new long[iters];
        long[] cpus = new long[iters];
        long cold = 0;
        for (int i = 0; i < warmup + iters; i++) {
            try (CuratorFramework c = newClient()) {
                CountDownLatch initialized = new CountDownLatch(1);
                long cpu0 = processCpu();
                long t0 = System.nanoTime();
                try (CuratorCache cache = newCache(c)) {
                    cache.listenable().addListener(CuratorCacheListener.builder().forInitialized(initialized::countDown).build());
                    load(cache, initialized);
                    long took = System.nanoTime() - t0;
                    long cpu = processCpu() - cpu0;
                    if (i == 0) {
                        cold = took;
                    }
                    if (i >= warmup) {
                        times[i - warmup] = took;
                        cpus[i - warmup] = cpu;
                    }
                }
            }
        }
        Arrays.sort(times);
        Arrays.sort(cpus);
        return String.format(Locale.ROOT, " runs=%d init_p50_ms=%.2f init_min_ms=%.2f init_max_ms=%.2f cold_ms=%.2f cpu_ms=%.2f",
                iters, percentile(times, 50) / 1e6, times[0] / 1e6, times[times.length - 1] / 1e6, cold / 1e6, percentile(cpus, 50) / 1e6);
    }

    // Change is one write every cache's listener waits for.
    static final class Change {
        final String path;
        final int version;
        volatile long start;
        final long[] samples;
        final CountDownLatch left;
        int n;

        Change(String path, int version, int caches) {
            this.path = path;
            this.version = version;
            this.samples = new long[caches];
            this.left = new CountDownLatch(caches);
        }

        void seen(ChildData node) {
            if (!node.getPath().equals(path) || node.getStat().getVersion() != version) {
                return;
            }
            long took = System.nanoTime() - start;
            synchronized (this) {
                samples[n++] = took;
            }
            left.countDown();
        }
    }

    static String latency(int caches, int iters, int warmup) throws Exception {
        AtomicReference<Change> cur = new AtomicReference<>();
        List<CuratorFramework> clients = new ArrayList<>();
        List<CuratorCache> cs = new ArrayList<>();
        CuratorFramework writer = newClient();
        try {
            List<CountDownLatch> inits = new ArrayList<>();
            for (int i = 0; i < caches; i++) {
                CuratorFramework c = CuratorFrameworkFactory.newClient(connect, sessionMs, 5000, new ExponentialBackoffRetry(100, 5));
                clients.add(c);
                c.start();
            }
            for (CuratorFramework c : clients) {
                if (!c.blockUntilConnected(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no connection to " + connect);
                }
                CuratorCache cache = newCache(c);
                cs.add(cache);
                CountDownLatch initialized = new CountDownLatch(1);
                inits.add(initialized);
                cache.listenable().addListener(CuratorCacheListener.builder()
                        .forInitialized(initialized::countDown)
                        .forChanges((oldNode, node) -> {
                            Change x = cur.get();
                            if (x != null) {
                                x.seen(node);
                            }
                        })
                        .build());
                cache.start();
            }
            for (CountDownLatch l : inits) {
                if (!l.await(5, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("cache not initialized within 5 minutes");
                }
            }
            int watches = serverWatches();
            ZooKeeper zk = writer.getZookeeperClient().getZooKeeper();
            int[] versions = new int[leaves];
            byte[] data = new byte[dataBytes];
            long[] all = new long[iters * caches];
            int k = 0;
            for (int i = 0; i < warmup + iters; i++) {
                int leaf = i % leaves;
                Arrays.fill(data, (byte) ('a' + i % 26));
                Change x = new Change(leaf(leaf), versions[leaf] + 1, caches);
                cur.set(x);
                x.start = System.nanoTime();
                zk.setData(x.path, data, versions[leaf]);
                versions[leaf]++;
                if (!x.left.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("change " + i + " of " + x.path + ": not every cache saw it within 30 s");
                }
                if (i >= warmup) {
                    synchronized (x) {
                        System.arraycopy(x.samples, 0, all, k, caches);
                    }
                    k += caches;
                }
            }
            Arrays.sort(all);
            return String.format(Locale.ROOT, " caches=%d changes=%d events=%d event_p50_ms=%.3f event_p99_ms=%.3f server_watches=%d",
                    caches, iters, all.length, percentile(all, 50) / 1e6, percentile(all, 99) / 1e6, watches);
        } finally {
            for (CuratorCache c : cs) {
                c.close();
            }
            for (CuratorFramework c : clients) {
                c.close();
            }
            writer.close();
        }
    }

    // serverWatches asks the first server for its number of watches (the
    // four-letter word wchs), or -1.
    static int serverWatches() {
        try {
            String hostPort = connect.split(",")[0];
            int colon = hostPort.lastIndexOf(':');
            String out = FourLetterWordMain.send4LetterWord(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)), "wchs");
            Matcher m = Pattern.compile("Total watches:\\s*(\\d+)").matcher(out);
            return m.find() ? Integer.parseInt(m.group(1)) : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    // usedHeap is Runtime's used heap after System.gc(), repeated until two
    // readings in a row agree within 1% (at most 10 times).
    static long usedHeap() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long last = -1;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(50);
            long used = rt.totalMemory() - rt.freeMemory();
            if (last >= 0 && Math.abs(used - last) <= last / 100) {
                return used;
            }
            last = used;
        }
        return last;
    }

    static String heap() throws Exception {
        try (CuratorFramework c = newClient()) {
            long before = usedHeap();
            CountDownLatch initialized = new CountDownLatch(1);
            long t0 = System.nanoTime();
            try (CuratorCache cache = newCache(c)) {
                cache.listenable().addListener(CuratorCacheListener.builder().forInitialized(initialized::countDown).build());
                load(cache, initialized);
                long took = System.nanoTime() - t0;
                long loaded = usedHeap();
                if (cache.size() != nodes()) { // keeps the cache reachable through the reading
                    throw new IllegalStateException("cache lost nodes");
                }
                return String.format(Locale.ROOT, " heap_bytes=%d heap_per_node_bytes=%.0f watch_table_per_node_bytes=-1 init_ms=%.2f",
                        loaded - before, (double) (loaded - before) / nodes(), took / 1e6);
            }
        }
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
