package io.github.hessianrs.dubbointerop;

import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.rpc.model.ApplicationModel;

/**
 * Dubbo 3 only (src/dubbo3, called by name from {@link DubboSetup}): what a stock consumer
 * configured with a global registry has and a reference-local registry lacks. The application's
 * deployer turns its default registries into the metadata centre
 * ({@code DefaultApplicationDeployer.useRegistryAsMetadataCenterIfNecessary}), where a consumer
 * reads the interface -> application mapping of application-level discovery.
 */
final class AppLevel {
    private AppLevel() {
    }

    /** Adds {@code registry} to the application's configuration, as a global registry. */
    static void addDefaultRegistry(RegistryConfig registry) {
        registry.setDefault(true);
        ApplicationModel.defaultModel().getApplicationConfigManager().addRegistry(registry);
    }
}
