// A Curator InterProcessSemaphoreV2 contender for zkrecipes' interoperability
// tests: it takes one lease at a time on a semaphore shared with Go
// contenders and, while holding it, checks on ZooKeeper itself that no more
// than MAX leases are held at once:
//   - create an EPHEMERAL_SEQUENTIAL node under <inside> (one per lease held);
//   - list <inside>: more than MAX children is a violation;
//   - pause, delete its node, return the lease.
// With a sixth argument "mutex" it uses InterProcessSemaphoreMutex (MAX must
// be 1) instead.
// Usage: CuratorSemaphore CONNECT PATH MAX ITERS INSIDE [mutex]
// Prints "curator: ready", then "curator: done iters=N violations=V peak=P".
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

public class CuratorSemaphore {
    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1];
        int max = Integer.parseInt(args[2]);
        int iters = Integer.parseInt(args[3]);
        String inside = args[4];
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        boolean asMutex = args.length > 5 && args[5].equals("mutex");
        InterProcessSemaphoreV2 sem = asMutex ? null : new InterProcessSemaphoreV2(cf, path, max);
        InterProcessSemaphoreMutex mutex = asMutex ? new InterProcessSemaphoreMutex(cf, path) : null;
        System.out.println("curator: ready");
        System.out.flush();
        int violations = 0, peak = 0;
        for (int i = 0; i < iters; i++) {
            Lease lease = null;
            if (asMutex) {
                mutex.acquire();
            } else {
                lease = sem.acquire();
            }
            try {
                String mine = cf.create().creatingParentContainersIfNeeded()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(inside + "/java-");
                int n = cf.getChildren().forPath(inside).size();
                peak = Math.max(peak, n);
                if (n > max) {
                    violations++;
                }
                Thread.sleep(2);
                cf.delete().forPath(mine);
            } finally {
                if (asMutex) {
                    mutex.release();
                } else {
                    sem.returnLease(lease);
                }
            }
        }
        System.out.println("curator: done iters=" + iters + " violations=" + violations + " peak=" + peak);
        cf.close();
    }
}
