import { useEffect, useRef, useState } from 'react';
import { Box3, DirectionalLight, HemisphereLight, Material, Mesh, Object3D, PerspectiveCamera, Scene, Vector3, WebGLRenderer } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

type State = 'loading' | 'ready' | 'error' | 'no-webgl';

/** Whether this browser can make a WebGL context at all (off in some locked-down or headless browsers). */
function canUseWebGL(): boolean {
  try {
    const canvas = document.createElement('canvas');
    return !!(canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

function dispose(root: Object3D): void {
  root.traverse((node) => {
    if (node instanceof Mesh) {
      node.geometry.dispose();
      const materials: Material[] = Array.isArray(node.material) ? node.material : [node.material];
      for (const material of materials) material.dispose();
    }
  });
}

/**
 * An interactive preview of a binary glTF (.glb) file: three.js's GLTFLoader and OrbitControls in a
 * WebGL canvas, framed on the model, turning slowly (not when the user prefers reduced motion);
 * drag to orbit, scroll or pinch to zoom. Loaded on demand (its own chunk) by the 3D preview.
 * `data-state` tells tests and styles where it is: loading, ready, error or no-webgl. Give it a
 * `key` of the URL: one instance shows one file.
 */
export default function ModelPreview({ url, label }: { url: string; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<State>(() => (canUseWebGL() ? 'loading' : 'no-webgl'));
  const webgl = state !== 'no-webgl';
  const [meshes, setMeshes] = useState(0);

  useEffect(() => {
    const container = ref.current;
    if (!container || !webgl) return;
    let renderer: WebGLRenderer;
    try {
      renderer = new WebGLRenderer({ antialias: true, alpha: true });
    } catch {
      // The context could be made by the probe but not here (lost, or refused): say so, once.
      void Promise.resolve().then(() => setState('no-webgl'));
      return;
    }
    let disposed = false;
    renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    const canvas = renderer.domElement;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', label);
    container.appendChild(canvas);

    const scene = new Scene();
    scene.add(new HemisphereLight(0xffffff, 0x8a93a3, 2.2));
    const key = new DirectionalLight(0xffffff, 2.4);
    key.position.set(3, 5, 4);
    scene.add(key);
    const camera = new PerspectiveCamera(40, 4 / 3, 0.01, 1000);
    camera.position.set(2, 1.5, 2.5);
    const controls = new OrbitControls(camera, canvas);
    controls.enableDamping = true;
    controls.autoRotate = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    controls.autoRotateSpeed = 1.2;

    const resize = () => {
      const width = Math.max(1, container.clientWidth);
      const height = Math.round(width * 0.75);
      renderer.setSize(width, height);
      camera.aspect = width / height;
      camera.updateProjectionMatrix();
    };
    resize();
    const observer = new ResizeObserver(resize);
    observer.observe(container);

    let model: Object3D | null = null;
    new GLTFLoader().load(
      url,
      (gltf) => {
        if (disposed) return dispose(gltf.scene);
        model = gltf.scene;
        const box = new Box3().setFromObject(model);
        const center = box.getCenter(new Vector3());
        const radius = Math.max(box.getSize(new Vector3()).length() / 2, 1e-3);
        model.position.sub(center);
        scene.add(model);
        camera.near = radius / 100;
        camera.far = radius * 100;
        camera.position.set(radius * 1.5, radius * 1.1, radius * 2.1);
        camera.updateProjectionMatrix();
        controls.target.set(0, 0, 0);
        controls.update();
        let count = 0;
        model.traverse((node) => (count += node instanceof Mesh ? 1 : 0));
        setMeshes(count);
        setState('ready');
      },
      undefined,
      () => !disposed && setState('error'),
    );
    renderer.setAnimationLoop(() => {
      controls.update();
      renderer.render(scene, camera);
    });

    return () => {
      disposed = true;
      renderer.setAnimationLoop(null);
      observer.disconnect();
      controls.dispose();
      if (model) dispose(model);
      renderer.dispose();
      canvas.remove();
    };
  }, [url, label, webgl]);

  return (
    <div className="model-preview" data-state={state} data-meshes={meshes}>
      <div ref={ref} className="model-canvas" />
      {state === 'loading' && <p className="hint model-status" role="status">Loading the 3D model…</p>}
      {state === 'ready' && <p className="hint model-status">Drag to turn it, scroll or pinch to zoom.</p>}
      {state === 'error' && (
        <p className="hint model-status" role="alert">
          The 3D model could not be shown here; download it below.
        </p>
      )}
      {state === 'no-webgl' && (
        <p className="hint model-status" role="status">
          This browser cannot show 3D (WebGL is off); download the model below.
        </p>
      )}
    </div>
  );
}
