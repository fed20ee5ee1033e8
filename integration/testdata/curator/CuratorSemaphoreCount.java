// A Curator InterProcessSemaphoreV2 whose limit is a SharedCount, for
// zkrecipes' interoperability tests: it checks that a limit raised by a Go
// process (recipes/shared.Count.Set) wakes a Java acquirer blocked on it.
// Usage: CuratorSemaphoreCount CONNECT PATH COUNT_PATH
// Prints "curator: ready" once its count is started, then blocks in
// acquire (at most 60 s), prints "curator: acquired limit=N" with the count
// it saw, returns the lease and prints "curator: done". Exits 1 when the
// acquire timed out.
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorSemaphoreCount {
    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1], countPath = args[2];
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        SharedCount count = new SharedCount(cf, countPath, 1);
        count.start();
        InterProcessSemaphoreV2 sem = new InterProcessSemaphoreV2(cf, path, count);
        System.out.println("curator: ready limit=" + count.getCount());
        System.out.flush();
        Lease lease = sem.acquire(60, TimeUnit.SECONDS);
        if (lease == null) {
            System.out.println("curator: timed out limit=" + count.getCount());
            System.exit(1);
        }
        System.out.println("curator: acquired limit=" + count.getCount());
        System.out.flush();
        sem.returnLease(lease);
        System.out.println("curator: done");
        count.close();
        cf.close();
    }
}
