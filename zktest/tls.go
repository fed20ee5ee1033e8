package zktest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// TLSFiles are the keys and certificates a cluster started WithTLS serves
// its secure client port with, all made at Start in a temporary directory
// that Close removes. The certificate authority is made in Go; the
// server's key pair is made by the JDK's keytool in a PKCS12 keystore and
// signed by that authority, and the truststore (PKCS12, keytool too) holds
// the authority, so a client must present a certificate it signed: the
// client certificate here is one.
type TLSFiles struct {
	// Dir is the directory holding every file below.
	Dir string
	// CAFile is the authority's certificate (PEM): the roots a client trusts.
	CAFile string
	// CertFile and KeyFile are a client certificate signed by the
	// authority and its private key (PEM).
	CertFile, KeyFile string
	// KeyStore and TrustStore are the server's PKCS12 keystore (its key
	// and certificate chain) and truststore (the authority), both
	// protected by Password.
	KeyStore, TrustStore string
	// Password protects the keystore and the truststore.
	Password string
}

// ClientConfig returns a tls.Config that trusts the cluster's authority and
// presents the client certificate, for client.WithTLS. ServerName is left
// empty: the client takes it from the address it dials (the servers'
// certificate names 127.0.0.1 and localhost).
func (f *TLSFiles) ClientConfig() (*tls.Config, error) {
	if f == nil {
		return nil, errors.New("zktest: cluster was not started WithTLS")
	}
	caPEM, err := os.ReadFile(f.CAFile)
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("zktest: no certificate in %s", f.CAFile)
	}
	cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	return &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// Where the docker backend puts the keystore and truststore in a container.
const (
	containerKeyStore   = "/tls/keystore.p12"
	containerTrustStore = "/tls/truststore.p12"
	// containerSecurePort is the secure client port inside a container.
	containerSecurePort = 2281
)

// tlsValidity is how long the certificates made for a cluster are valid.
const tlsValidity = 7 * 24 * time.Hour

// serverCertHosts are the names the servers' certificate carries: clients
// dial 127.0.0.1 (or localhost) on either backend.
var serverCertHosts = []string{"127.0.0.1", "::1", "localhost"}

// makeTLSFiles makes the authority, the client certificate and the
// server's keystore and truststore in a new temporary directory. keytool
// comes from PATH (the JDK the local backend runs ZooKeeper with; the
// docker backend needs it on the host too).
func makeTLSFiles(ctx context.Context) (*TLSFiles, error) {
	keytool, err := exec.LookPath("keytool")
	if err != nil {
		return nil, fmt.Errorf("%w: WithTLS makes the server's keystore with the JDK's keytool, not found in PATH (apt-get install -y default-jre-headless): %w",
			ErrNoBackend, err)
	}
	dir, err := os.MkdirTemp("", "zktest-tls-")
	if err != nil {
		return nil, fmt.Errorf("zktest: temp dir: %w", err)
	}
	f := &TLSFiles{
		Dir:        dir,
		CAFile:     filepath.Join(dir, "ca.pem"),
		CertFile:   filepath.Join(dir, "client.pem"),
		KeyFile:    filepath.Join(dir, "client-key.pem"),
		KeyStore:   filepath.Join(dir, "keystore.p12"),
		TrustStore: filepath.Join(dir, "truststore.p12"),
		Password:   randomHex(12),
	}
	if err := f.make(ctx, keytool); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return f, nil
}

func (f *TLSFiles) make(ctx context.Context, keytool string) error {
	ca, err := newCA("zktest test CA")
	if err != nil {
		return err
	}
	if err := writePEM(f.CAFile, "CERTIFICATE", ca.cert.Raw); err != nil {
		return err
	}
	clientDER, clientKey, err := ca.issue("zktest client", []string{"127.0.0.1", "localhost"}, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(clientKey)
	if err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	if err := writePEM(f.CertFile, "CERTIFICATE", clientDER); err != nil {
		return err
	}
	if err := writePEM(f.KeyFile, "PRIVATE KEY", keyDER); err != nil {
		return err
	}
	return f.keystores(ctx, keytool, ca)
}

// keystores has keytool make the server's key pair and a request for its
// certificate, signs the request with ca, and has keytool install the
// signed chain in the keystore and the authority in the truststore.
func (f *TLSFiles) keystores(ctx context.Context, keytool string, ca *authority) error {
	store := []string{"-storetype", "PKCS12", "-storepass", f.Password}
	csrFile := filepath.Join(f.Dir, "server.csr")
	chainFile := filepath.Join(f.Dir, "server-chain.pem")
	steps := [][]string{
		append([]string{"-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
			"-dname", "CN=zktest server", "-validity", "7", "-keystore", f.KeyStore, "-keypass", f.Password}, store...),
		append([]string{"-certreq", "-alias", "server", "-keystore", f.KeyStore, "-file", csrFile}, store...),
	}
	for _, args := range steps {
		if err := runKeytool(ctx, keytool, args); err != nil {
			return err
		}
	}
	csrPEM, err := os.ReadFile(csrFile)
	if err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	block, _ := pem.Decode(csrPEM)
	if block == nil {
		return fmt.Errorf("zktest: keytool wrote no certificate request in %s", csrFile)
	}
	csr, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return fmt.Errorf("zktest: keytool's certificate request: %w", err)
	}
	serverDER, err := ca.sign(csr.PublicKey, "zktest server", serverCertHosts, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return err
	}
	chain := append(pemBytes("CERTIFICATE", serverDER), pemBytes("CERTIFICATE", ca.cert.Raw)...)
	if err := os.WriteFile(chainFile, chain, 0o644); err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	steps = [][]string{
		append([]string{"-importcert", "-noprompt", "-trustcacerts", "-alias", "server", "-keystore", f.KeyStore, "-file", chainFile}, store...),
		append([]string{"-importcert", "-noprompt", "-alias", "ca", "-keystore", f.TrustStore, "-file", f.CAFile}, store...),
	}
	for _, args := range steps {
		if err := runKeytool(ctx, keytool, args); err != nil {
			return err
		}
	}
	return nil
}

// runKeytool runs keytool with args, returning its output in the error.
func runKeytool(ctx context.Context, keytool string, args []string) error {
	out, err := exec.CommandContext(ctx, keytool, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("zktest: keytool %s: %w: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

// secureCfg is the zoo.cfg lines of a server with a secure client port on
// port (bound to addr when not empty) and the given stores.
func (f *TLSFiles) secureCfg(port int, addr, keyStore, trustStore string) []string {
	lines := []string{
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
		fmt.Sprintf("secureClientPort=%d", port),
		"ssl.keyStore.location=" + keyStore,
		"ssl.keyStore.password=" + f.Password,
		"ssl.keyStore.type=PKCS12",
		"ssl.trustStore.location=" + trustStore,
		"ssl.trustStore.password=" + f.Password,
		"ssl.trustStore.type=PKCS12",
	}
	if addr != "" {
		lines = append(lines, "secureClientPortAddress="+addr)
	}
	return lines
}

// probeTLS completes a TLS handshake with addr: the secure port is up and
// serves the cluster's certificate.
func (f *TLSFiles) probeTLS(ctx context.Context, addr string) error {
	cfg, err := f.ClientConfig()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	d := tls.Dialer{Config: cfg}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("secure port: %w", err)
	}
	return conn.Close()
}

// authority is a certificate authority made for one cluster.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// newCA makes a self-signed certificate authority named cn.
func newCA(cn string) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(tlsValidity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	return &authority{cert: cert, key: key}, nil
}

// SelfSignedCA makes a self-signed certificate authority named cn that no
// cluster uses and returns its certificate: for a test in which a client
// or a server must refuse a peer it did not sign.
func SelfSignedCA(cn string) (*x509.Certificate, error) {
	a, err := newCA(cn)
	if err != nil {
		return nil, err
	}
	return a.cert, nil
}

// issue makes a key pair and a certificate for it signed by a.
func (a *authority) issue(cn string, hosts []string, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("zktest: %w", err)
	}
	der, err := a.sign(&key.PublicKey, cn, hosts, usage)
	return der, key, err
}

// sign certifies pub as cn, valid for hosts (IP addresses or DNS names).
func (a *authority) sign(pub any, cn string, hosts []string, usage x509.ExtKeyUsage) ([]byte, error) {
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(tlsValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, pub, a.key)
	if err != nil {
		return nil, fmt.Errorf("zktest: sign a certificate: %w", err)
	}
	return der, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

func pemBytes(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func writePEM(path, kind string, der []byte) error {
	if err := os.WriteFile(path, pemBytes(kind, der), 0o600); err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	return nil
}

// randomHex returns n random bytes in hex (a password: no spaces, since
// the docker backend passes zoo.cfg lines space-separated).
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return fmt.Sprintf("%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b)
}
