// A Curator 5 CuratorCache for zkrecipes' interoperability test of
// recipes/cache: it prints every event the cache delivers, in the Go test's
// rendering, and once a node named "done" appears right under the cached
// path, the whole cache, sorted by path; then it exits.
// Usage:
//   CuratorCacheWatch CONNECT PATH
// CONNECT may carry a chroot ("host:port/ns"), as the Go client's namespace.
// Output lines:
//   curator: ready                 the cache is started and initialized
//   event: NODE_CREATED /p=data    (NODE_CHANGED, NODE_DELETED: the node's last data)
//   tree: /p=data                  once "done" appeared, one line a node
//   curator: done
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorCacheWatch {
    static String render(ChildData d) {
        byte[] data = d.getData();
        return d.getPath() + "=" + (data == null ? "" : new String(data, StandardCharsets.UTF_8));
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1];
        String done = (path.equals("/") ? "" : path) + "/done";
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        CountDownLatch initialized = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(1);
        CuratorCache cache = CuratorCache.build(cf, path);
        CuratorCacheListener listener = CuratorCacheListener.builder()
                .forAll((type, oldData, data) -> {
                    ChildData shown = data != null ? data : oldData;
                    say("event: " + type + " " + render(shown));
                    if (type == CuratorCacheListener.Type.NODE_CREATED && shown.getPath().equals(done)) {
                        finished.countDown();
                    }
                })
                .forInitialized(initialized::countDown)
                .build();
        cache.listenable().addListener(listener);
        cache.start();
        if (!initialized.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("cache not initialized");
        }
        say("curator: ready");
        if (!finished.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no " + done + " within 120 s");
        }
        cache.stream().sorted(Comparator.comparing(ChildData::getPath)).forEach(d -> say("tree: " + render(d)));
        say("curator: done");
        cache.close();
        cf.close();
    }
}
