// A Curator contender for zkrecipes' interoperability tests: it takes a
// Curator lock on a path shared with Go contenders, and inside it performs a
// checked critical section on ZooKeeper itself, so overlap with a Go holder
// is caught on the server:
//   - create the EPHEMERAL node <inside>; NodeExists means someone else is
//     inside (a violation);
//   - read the decimal counter in <counter>, pause, write it back plus one;
//   - delete <inside>, release the lock.
// A reader (KIND read) only checks that <inside> does not exist.
// Usage: CuratorContender CONNECT LOCKPATH KIND(mutex|write|read) ITERS COUNTER INSIDE
// Prints "curator: done iters=N violations=V" and exits 0.
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

public class CuratorContender {
    public static void main(String[] args) throws Exception {
        String connect = args[0], lockPath = args[1], kind = args[2];
        int iters = Integer.parseInt(args[3]);
        String counter = args[4], inside = args[5];
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        InterProcessLock lock;
        switch (kind) {
            case "mutex": lock = new InterProcessMutex(cf, lockPath); break;
            case "write": lock = new InterProcessReadWriteLock(cf, lockPath).writeLock(); break;
            case "read": lock = new InterProcessReadWriteLock(cf, lockPath).readLock(); break;
            default: throw new IllegalArgumentException("kind " + kind);
        }
        System.out.println("curator: ready");
        System.out.flush();
        int violations = 0;
        for (int i = 0; i < iters; i++) {
            lock.acquire();
            try {
                if (kind.equals("read")) {
                    // A reader only checks that no writer is inside.
                    if (cf.checkExists().forPath(inside) != null) {
                        violations++;
                    }
                    Thread.sleep(2);
                    continue;
                }
                try {
                    cf.create().withMode(CreateMode.EPHEMERAL).forPath(inside);
                } catch (KeeperException.NodeExistsException e) {
                    violations++;
                }
                int n = Integer.parseInt(new String(cf.getData().forPath(counter), StandardCharsets.US_ASCII));
                Thread.sleep(2);
                cf.setData().forPath(counter, Integer.toString(n + 1).getBytes(StandardCharsets.US_ASCII));
                try {
                    cf.delete().forPath(inside);
                } catch (KeeperException.NoNodeException e) {
                    violations++;
                }
            } finally {
                lock.release();
            }
        }
        System.out.println("curator: done iters=" + iters + " violations=" + violations);
        cf.close();
    }
}
