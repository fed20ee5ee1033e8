// A Curator InterProcessMultiLock for zkrecipes' interoperability tests
// (the Go side is recipes/mutex.Multi). Its locks are InterProcessMutexes,
// taken in the order the paths are given, as Curator does.
// Usage:
//   CuratorMultiLock CONNECT hold HOLD_MS PATH...  acquires, prints "curator: held", holds
//                                                 HOLD_MS, prints "curator: releasing", releases,
//                                                 prints "curator: released"
//   CuratorMultiLock CONNECT try WAIT_MS PATH...   acquire(WAIT_MS): prints "curator: acquired=BOOL"
//                                                 (and releases what it got)
// Paths are absolute (no namespace). Exit status 0.
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorMultiLock {
    public static void main(String[] args) throws Exception {
        String connect = args[0], mode = args[1];
        long ms = Long.parseLong(args[2]);
        List<String> paths = Arrays.asList(Arrays.copyOfRange(args, 3, args.length));
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        InterProcessMultiLock lock = new InterProcessMultiLock(cf, paths);
        switch (mode) {
            case "hold":
                lock.acquire();
                say("curator: held");
                Thread.sleep(ms);
                say("curator: releasing");
                lock.release();
                say("curator: released");
                break;
            case "try":
                boolean got = lock.acquire(ms, TimeUnit.MILLISECONDS);
                say("curator: acquired=" + got);
                if (got) {
                    lock.release();
                }
                break;
            default:
                throw new IllegalArgumentException("mode " + mode);
        }
        cf.close();
        System.exit(0);
    }

    static void say(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
