// Curator 5.4's leader election measured the way zkbench measures
// recipes/election. P participants, each with a CuratorFramework (a session)
// of its own, on PATH. WARMUP unmeasured terms first, then at most ITERS
// measured ones, for at most BUDGET_MS milliseconds (0: no cap).
//
//   latch  LeaderLatch: the leader closes its latch (a clean resign); the
//          time from the close() call to the next latch's isLeader listener
//          is one failover; the resigned participant then starts a new latch
//          (it joins at the back).
//   run    LeaderSelector with autoRequeue and a takeLeadership that returns
//          at once: terms per second; failover is from one takeLeadership's
//          return to the next one's call.
//
// Usage: CuratorElectionBench latch|run CONNECT PATH P ITERS WARMUP BUDGET_MS SESSION_MS
//
// Prints one line, in zkbench's format:
//   recipe=curator-latch participants=P iters=M terms=N secs=S terms_per_s=X
//   failover_p50_ms=A failover_p99_ms=B violations=V
// violations counts terms that began while another participant led (warm-up
// and measurement, not the closing at the end), by this process's own
// counter (a latch counts as resigned from its close() call, or when its
// notLeader listener runs). Such events, and connection state changes, are
// told on stderr in lines starting with "bench: ".
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorElectionBench {
    static final AtomicInteger leading = new AtomicInteger();
    static final AtomicLong violations = new AtomicLong();
    // counting is cleared before the participants are closed at the end:
    // closing a leader there makes the next one lead without a resign.
    static volatile boolean counting = true;

    static CuratorFramework[] clients;
    static String path;
    static final BlockingQueue<long[]> starts = new LinkedBlockingQueue<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 8 || !(args[0].equals("latch") || args[0].equals("run"))) {
            System.err.println("usage: CuratorElectionBench latch|run CONNECT PATH P ITERS WARMUP BUDGET_MS SESSION_MS");
            System.exit(2);
        }
        String mode = args[0], connect = args[1];
        path = args[2];
        int p = Integer.parseInt(args[3]);
        int iters = Integer.parseInt(args[4]);
        int warmup = Integer.parseInt(args[5]);
        long budgetMs = Long.parseLong(args[6]);
        int sessionMs = Integer.parseInt(args[7]);

        clients = new CuratorFramework[p];
        for (int i = 0; i < p; i++) {
            clients[i] = CuratorFrameworkFactory.newClient(connect, sessionMs, 5000, new ExponentialBackoffRetry(100, 5));
            clients[i].start();
            final int who = i;
            clients[i].getConnectionStateListenable().addListener((c, st) -> {
                if (st != ConnectionState.CONNECTED) {
                    System.err.println("bench: participant " + who + "'s connection: " + st);
                }
            });
        }
        try {
            for (CuratorFramework c : clients) {
                if (!c.blockUntilConnected(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no connection to " + connect);
                }
            }
            if (mode.equals("latch")) {
                latch(p, iters, warmup, budgetMs);
            } else {
                run(p, iters, warmup, budgetMs);
            }
        } finally {
            for (CuratorFramework c : clients) {
                c.close();
            }
        }
    }

    static LeaderLatch join(int i) throws Exception {
        LeaderLatch l = new LeaderLatch(clients[i], path, Integer.toString(i));
        l.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                long at = System.nanoTime();
                int n = leading.incrementAndGet();
                if (n > 1 && counting) {
                    violations.incrementAndGet();
                    System.err.println("bench: violation: participant " + i + " leads while " + (n - 1) + " other(s) lead");
                }
                starts.add(new long[] {i, at});
            }

            @Override
            public void notLeader() {
                // Not called by close() (CloseMode.SILENT clears the
                // listeners first): only when leadership goes otherwise.
                leading.decrementAndGet();
                System.err.println("bench: participant " + i + " lost leadership without closing");
            }
        });
        l.start();
        return l;
    }

    static long[] next() throws InterruptedException {
        long[] s = starts.poll(30, TimeUnit.SECONDS);
        if (s == null) {
            throw new IllegalStateException("no next leader within 30 s");
        }
        return s;
    }

    static void latch(int p, int iters, int warmup, long budgetMs) throws Exception {
        LeaderLatch[] latches = new LeaderLatch[p];
        for (int i = 0; i < p; i++) {
            latches[i] = join(i);
        }
        long[] cur = next();
        long[] lat = new long[iters];
        int terms = 0;
        long start = 0;
        try {
            for (int n = 0; n < warmup + iters; n++) {
                if (n == warmup) {
                    start = System.nanoTime();
                }
                if (n >= warmup && budgetMs > 0 && System.nanoTime() - start >= budgetMs * 1_000_000L) {
                    break;
                }
                int leader = (int) cur[0];
                leading.decrementAndGet(); // resigned from the close() call on
                long t0 = System.nanoTime();
                latches[leader].close();
                cur = next();
                if (cur[0] == leader) {
                    throw new IllegalStateException("participant " + leader + " leads again after its latch closed");
                }
                if (n >= warmup) {
                    lat[terms++] = cur[1] - t0;
                }
                latches[leader] = join(leader);
            }
        } finally {
            counting = false;
            for (LeaderLatch l : latches) {
                if (l.getState() == LeaderLatch.State.STARTED) {
                    l.close();
                }
            }
        }
        long elapsed = System.nanoTime() - start;
        print("curator-latch", p, iters, terms, elapsed, Arrays.copyOf(lat, terms));
    }

    static void run(int p, int iters, int warmup, long budgetMs) throws Exception {
        final int total = warmup + iters;
        final Object mu = new Object();
        final long[] state = new long[4]; // count, start, end, lastReturn
        final List<Long> handoffs = new ArrayList<>();
        final AtomicInteger inside = new AtomicInteger();
        final CountDownLatch finished = new CountDownLatch(1);
        final CountDownLatch measuring = new CountDownLatch(1);
        LeaderSelector[] sels = new LeaderSelector[p];
        for (int i = 0; i < p; i++) {
            sels[i] = new LeaderSelector(clients[i], path, new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) {
                    long at = System.nanoTime();
                    if (inside.incrementAndGet() > 1 && counting) {
                        violations.incrementAndGet();
                    }
                    long n;
                    synchronized (mu) {
                        n = state[0]++;
                        if (n == warmup) {
                            state[1] = at;
                            measuring.countDown();
                        } else if (n > warmup && n < total && state[3] != 0) {
                            handoffs.add(at - state[3]);
                        }
                    }
                    Thread.yield(); // stay leader a little, so an overlap has a chance to show
                    inside.decrementAndGet();
                    long now = System.nanoTime();
                    synchronized (mu) {
                        state[3] = now;
                        if (n == total - 1) {
                            state[2] = now;
                            finished.countDown();
                        }
                    }
                }
            });
            sels[i].setId(Integer.toString(i));
            sels[i].autoRequeue();
        }
        for (LeaderSelector s : sels) {
            s.start();
        }
        try {
            if (!measuring.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the warm-up terms did not happen within 60 s");
            }
            long startAt;
            synchronized (mu) {
                startAt = state[1];
            }
            long wait = budgetMs > 0 ? budgetMs * 1_000_000L - (System.nanoTime() - startAt) : TimeUnit.MINUTES.toNanos(10);
            if (!finished.await(Math.max(wait, 0), TimeUnit.NANOSECONDS)) {
                synchronized (mu) {
                    state[2] = System.nanoTime();
                }
            }
        } finally {
            counting = false;
            for (LeaderSelector s : sels) {
                s.close();
            }
        }
        long[] lat;
        int terms;
        long elapsed;
        synchronized (mu) {
            terms = (int) (Math.min(state[0], total) - warmup);
            elapsed = state[2] - state[1];
            lat = new long[handoffs.size()];
            for (int i = 0; i < lat.length; i++) {
                lat[i] = handoffs.get(i);
            }
        }
        print("curator-run", p, iters, terms, elapsed, lat);
    }

    static void print(String recipe, int p, int iters, int terms, long elapsedNs, long[] lat) {
        Arrays.sort(lat);
        double secs = elapsedNs / 1e9;
        System.out.println(String.format(Locale.ROOT,
                "recipe=%s participants=%d iters=%d terms=%d secs=%.2f terms_per_s=%.1f failover_p50_ms=%.2f failover_p99_ms=%.2f violations=%d",
                recipe, p, iters, terms, secs, secs > 0 ? terms / secs : 0.0,
                percentile(lat, 50) / 1e6, percentile(lat, 99) / 1e6, violations.get()));
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
