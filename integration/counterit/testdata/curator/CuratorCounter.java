// Curator 5.4's DistributedAtomicLong for zkrecipes' interoperability tests
// (the Go side is recipes/counter.Counter).
//
// Usage: CuratorCounter CONNECT PATH LOCK_PATH COMMAND [ARGS] [COMMAND [ARGS]]...
//   get               prints "curator: value=V"
//   set V             forceSet(V), prints "curator: set"
//   add D             add(D), prints "curator: succeeded=B pre=P post=Q"
//   initialize V      prints "curator: initialized=B"
// runs each command in turn on one client; or, alone,
//   increment T N START
//                     T threads, each with a client (a session) of its own,
//                     print "curator: ready" once connected, wait until the
//                     node START exists (at most 60 s), then each increments
//                     N times, again after every increment that did not
//                     succeed; prints "curator: done successes=S failures=F
//                     optimistic=O promoted=P min=A max=B" (the smallest and
//                     largest postValue of its increments).
// The counter retries with ExponentialBackoffRetry(5, 5) and is promoted to
// an InterProcessMutex at LOCK_PATH with the same policy.
import java.util.ArrayList;
import java.util.List;
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

public class CuratorCounter {
    static CuratorFramework connect(String connect) throws Exception {
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        return cf;
    }

    static DistributedAtomicLong counter(CuratorFramework cf, String path, String lockPath) {
        RetryPolicy policy = new ExponentialBackoffRetry(5, 5);
        return new DistributedAtomicLong(cf, path, policy,
                PromotedToLock.builder().lockPath(lockPath).retryPolicy(policy).build());
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1], lockPath = args[2], command = args[3];
        if (command.equals("increment")) {
            increment(connect, path, lockPath, Integer.parseInt(args[4]), Integer.parseInt(args[5]), args[6]);
            System.exit(0);
        }
        CuratorFramework cf = connect(connect);
        DistributedAtomicLong dal = counter(cf, path, lockPath);
        for (int i = 3; i < args.length; i++) {
            switch (args[i]) {
                case "get":
                    AtomicValue<Long> v = dal.get();
                    if (!v.succeeded()) {
                        throw new IllegalStateException("get did not succeed");
                    }
                    System.out.println("curator: value=" + v.postValue());
                    break;
                case "set":
                    dal.forceSet(Long.parseLong(args[++i]));
                    System.out.println("curator: set");
                    break;
                case "add":
                    AtomicValue<Long> a = dal.add(Long.parseLong(args[++i]));
                    System.out.println("curator: succeeded=" + a.succeeded() + " pre=" + a.preValue() + " post=" + a.postValue());
                    break;
                case "initialize":
                    System.out.println("curator: initialized=" + dal.initialize(Long.parseLong(args[++i])));
                    break;
                default:
                    throw new IllegalArgumentException("unknown command " + args[i]);
            }
        }
        System.out.flush();
        cf.close();
        System.exit(0);
    }

    static void increment(String connect, String path, String lockPath, int threads, int n, String start) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            clients.add(connect(connect));
        }
        System.out.println("curator: ready");
        System.out.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (clients.get(0).checkExists().forPath(start) == null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + start + " within 60 s");
            }
            Thread.sleep(5);
        }
        AtomicLong successes = new AtomicLong(), failures = new AtomicLong(), optimistic = new AtomicLong(), promoted = new AtomicLong();
        AtomicLong min = new AtomicLong(Long.MAX_VALUE), max = new AtomicLong(Long.MIN_VALUE);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> running = new ArrayList<>();
        for (CuratorFramework cf : clients) {
            DistributedAtomicLong dal = counter(cf, path, lockPath);
            Thread t = new Thread(() -> {
                try {
                    for (int done = 0; done < n; ) {
                        AtomicValue<Long> v = dal.increment();
                        optimistic.addAndGet(v.getStats().getOptimisticTries());
                        promoted.addAndGet(v.getStats().getPromotedLockTries());
                        if (!v.succeeded()) {
                            failures.incrementAndGet();
                            continue;
                        }
                        done++;
                        successes.incrementAndGet();
                        min.accumulateAndGet(v.postValue(), Math::min);
                        max.accumulateAndGet(v.postValue(), Math::max);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            running.add(t);
            t.start();
        }
        for (Thread t : running) {
            t.join();
        }
        if (failure.get() != null) {
            throw new RuntimeException(failure.get());
        }
        System.out.println("curator: done successes=" + successes + " failures=" + failures + " optimistic=" + optimistic
                + " promoted=" + promoted + " min=" + min + " max=" + max);
        System.out.flush();
        for (CuratorFramework cf : clients) {
            cf.close();
        }
    }
}
