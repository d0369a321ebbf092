//! What a server writes about itself in a registry (feature `registry`): see
//! [`Server::register`](crate::server::Server::register).

use std::net::{IpAddr, SocketAddr};

use dubbo_registry::{RegistryError, ServiceUrl};

/// How a server's services are registered: the application name, the address to advertise,
/// and the provider URL parameters a Java consumer reads (`weight`, `warmup`, `timeout`, any
/// other through [`Registration::param`]). The URL is otherwise what a Java provider writes
/// ([`ServiceUrl::provider`]: `dubbo`, `release`, `pid`, `timestamp`, `serialization`,
/// `prefer.serialization`, `side`...), with the service's `interface`, `version`, `group`
/// and `methods`.
#[derive(Debug, Clone)]
pub struct Registration {
    application: String,
    host: Option<IpAddr>,
    params: Vec<(String, String)>,
    mode: RegisterMode,
}

/// What a server registers (Dubbo's `register-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RegisterMode {
    /// One provider URL per service (`/dubbo/<interface>/providers`), what every Dubbo
    /// consumer reads: 2.7, and 3.x by default (its `APPLICATION_FIRST` falls back to it).
    #[default]
    Interface,
    /// Dubbo 3's application level only: one instance of the application
    /// (`/services/<app>/<address:port>`), the service-name mappings
    /// (`/dubbo/mapping/<interface>`) and a MetadataService on the server's port that
    /// consumers ask for the services behind the instance. Dubbo 3 consumers find it; 2.7
    /// ones do not.
    Instance,
    /// Both, as a Dubbo 3 provider does by default.
    All,
}

impl Registration {
    /// Registration as application `application`.
    pub fn new(application: impl Into<String>) -> Self {
        Registration {
            application: application.into(),
            host: None,
            params: Vec::new(),
            mode: RegisterMode::Interface,
        }
    }

    /// What is registered (default [`RegisterMode::Interface`]).
    pub fn register_mode(mut self, mode: RegisterMode) -> Self {
        self.mode = mode;
        self
    }

    /// The register mode.
    pub fn mode(&self) -> RegisterMode {
        self.mode
    }

    /// The application name.
    pub fn application(&self) -> &str {
        &self.application
    }

    /// Whether the URLs say that the server serves Triple on its port
    /// ([`offer_triple`](Registration::offer_triple)).
    pub fn offers_triple(&self) -> bool {
        self.params
            .iter()
            .any(|(k, v)| k == "ext.protocol" && v.split(',').any(|p| p == "tri"))
    }

    /// The address consumers are given for a server listening on `addr`.
    ///
    /// # Errors
    ///
    /// [`RegistryError::UnspecifiedAddress`] when `addr` is the unspecified address and no
    /// [`host`](Registration::host) was given: no consumer could connect to it.
    pub fn advertised(&self, addr: SocketAddr) -> Result<SocketAddr, RegistryError> {
        let mut advertised = addr;
        if let Some(h) = self.host {
            advertised.set_ip(h);
        }
        if advertised.ip().is_unspecified() {
            return Err(RegistryError::UnspecifiedAddress {
                url: format!("dubbo://{addr}"),
            });
        }
        Ok(advertised)
    }

    /// The address to advertise, when the server listens on the unspecified address (Java
    /// takes its first LAN address there; here it must be said).
    pub fn host(mut self, host: IpAddr) -> Self {
        self.host = Some(host);
        self
    }

    /// The provider's `weight` (default 100).
    pub fn weight(self, weight: u32) -> Self {
        self.param("weight", weight.to_string())
    }

    /// The warm-up in ms over which consumers ramp its weight up (Dubbo's default: 10 min).
    pub fn warmup_ms(self, warmup: u64) -> Self {
        self.param("warmup", warmup.to_string())
    }

    /// The default call timeout in ms its consumers apply.
    pub fn timeout_ms(self, timeout: u64) -> Self {
        self.param("timeout", timeout.to_string())
    }

    /// Says that the server also serves Triple on its port (`ext.protocol=tri`, as a Java 3
    /// provider with `ext-protocol: tri` writes it): a consumer configured for Triple
    /// (`protocol=tri`) connects to the registered `dubbo://` address with it. Needs the
    /// server's `triple` feature.
    pub fn offer_triple(self) -> Self {
        self.param("ext.protocol", "tri")
    }

    /// [`offer_triple`](Registration::offer_triple), and asks consumers to prefer it
    /// (`preferred.protocol=tri`, Java 3.3's `preferred-protocol`): a Dubbo 3.3 consumer with
    /// no protocol of its own then calls over Triple by itself, while 2.7 and 3.2 consumers
    /// go on with the Dubbo protocol on the same port.
    pub fn prefer_triple(self) -> Self {
        self.offer_triple().param("preferred.protocol", "tri")
    }

    /// Any other URL parameter (`idc=hz`, `token=...`).
    pub fn param(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.push((key.into(), value.into()));
        self
    }

    /// The provider URL of one service listening on `addr`.
    ///
    /// # Errors
    ///
    /// [`RegistryError::UnspecifiedAddress`] when `addr` is the unspecified address and no
    /// [`host`](Registration::host) was given: no consumer could connect to it.
    pub fn provider_url(
        &self,
        addr: SocketAddr,
        interface: &str,
        version: &str,
        group: Option<&str>,
        methods: &[&str],
    ) -> Result<ServiceUrl, RegistryError> {
        let advertised = self.advertised(addr).map_err(|e| match e {
            RegistryError::UnspecifiedAddress { .. } => RegistryError::UnspecifiedAddress {
                url: format!("dubbo://{addr}/{interface}"),
            },
            other => other,
        })?;
        let mut b = ServiceUrl::provider(interface, advertised, &self.application)
            .version(version)
            .group(group.unwrap_or(""))
            .methods(methods);
        if addr.ip().is_unspecified() {
            b = b.param("anyhost", "true");
        }
        for (k, v) in &self.params {
            b = b.param(k, v.as_str());
        }
        Ok(b.build())
    }
}
