// Curator 5.4's barriers for zkrecipes' interoperability tests (the Go
// side is recipes/barrier). Every path is absolute (the Go test's namespace
// included). Exits 1 on a timeout or a failed call.
//
// CuratorBarriers double CONNECT PATH N MEMBERS SIGNAL
//   Starts MEMBERS members of the DistributedDoubleBarrier at PATH with
//   memberQty N, each on a client of its own, and prints "curator: ready".
//   Each calls enter(60 s) and prints "curator: entered I true|false",
//   waits until the node SIGNAL exists, calls leave(60 s) and prints
//   "curator: left I true|false". Then "curator: done".
// CuratorBarriers set CONNECT PATH SIGNAL
//   setBarrier() on PATH, prints "curator: set", waits until SIGNAL exists,
//   removeBarrier(), prints "curator: removed".
// CuratorBarriers wait CONNECT PATH
//   Prints "curator: ready", then waitOnBarrier(60 s) and prints
//   "curator: passed true|false".
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorBarriers {
    static CuratorFramework connect(String connect) throws Exception {
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        return cf;
    }

    static synchronized void say(String line) {
        System.out.println("curator: " + line);
        System.out.flush();
    }

    static void awaitNode(CuratorFramework cf, String path) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (cf.checkExists().forPath(path) == null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + path + " within 60 s");
            }
            Thread.sleep(10);
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0], connect = args[1], path = args[2];
        switch (mode) {
            case "double": {
                int n = Integer.parseInt(args[3]), members = Integer.parseInt(args[4]);
                String signal = args[5];
                List<CuratorFramework> clients = new ArrayList<>();
                for (int i = 0; i < members; i++) {
                    clients.add(connect(connect));
                }
                AtomicBoolean ok = new AtomicBoolean(true);
                List<Thread> threads = new ArrayList<>();
                say("ready");
                for (int i = 0; i < members; i++) {
                    final int who = i;
                    final CuratorFramework cf = clients.get(i);
                    Thread th = new Thread(() -> {
                        try {
                            DistributedDoubleBarrier b = new DistributedDoubleBarrier(cf, path, n);
                            boolean in = b.enter(60, TimeUnit.SECONDS);
                            say("entered " + who + " " + in);
                            awaitNode(cf, signal);
                            boolean out = b.leave(60, TimeUnit.SECONDS);
                            say("left " + who + " " + out);
                            if (!in || !out) {
                                ok.set(false);
                            }
                        } catch (Exception e) {
                            say("error " + who + " " + e);
                            ok.set(false);
                        }
                    });
                    th.start();
                    threads.add(th);
                }
                for (Thread th : threads) {
                    th.join();
                }
                for (CuratorFramework cf : clients) {
                    cf.close();
                }
                say("done");
                System.exit(ok.get() ? 0 : 1);
            }
            case "set": {
                CuratorFramework cf = connect(connect);
                DistributedBarrier b = new DistributedBarrier(cf, path);
                b.setBarrier();
                say("set");
                awaitNode(cf, args[3]);
                b.removeBarrier();
                say("removed");
                cf.close();
                System.exit(0);
            }
            case "wait": {
                CuratorFramework cf = connect(connect);
                DistributedBarrier b = new DistributedBarrier(cf, path);
                say("ready");
                boolean passed = b.waitOnBarrier(60, TimeUnit.SECONDS);
                say("passed " + passed);
                cf.close();
                System.exit(passed ? 0 : 1);
            }
            default:
                throw new IllegalArgumentException("mode " + mode);
        }
    }
}
